#pragma once
// The guard's lines in `kubectl logs` of the holder pod. The kubelet keeps a
// preStop hook's own output nowhere an operator looks (at most in the event
// of a failed hook), and the holder image has no shell to redirect it, so the
// guard also writes its lines to the holder process's stderr, which is the
// container's log. The holder is found through its record and the record's
// check, never as /proc/1: with hostPID that is the host's init.
#include <sys/types.h>

#include <string>
#include <string_view>

#include "netns/holder_record.hpp"
#include "netns/holder_ref.hpp"
#include "netns/nsfd.hpp"
#include "netns/unique_fd.hpp"

namespace netns::cli {

// Reads the record at `record_path` and runs the one record check on it
// (trust::check_record: a live holder, the same start time, our boot and pid
// namespace, holding its lock) with `guarded` as the namespace it must name. Throws netns::Error
// saying which step failed and why.
struct CheckedRecord {
  HolderRecord record;
  HolderRef holder;  // the holder, with its pidfd where the kernel has pidfds
};
CheckedRecord checked_holder_record(const std::string& record_path, NsId guarded);

class HolderLog {
 public:
  // checked_holder_record(), then /proc/<pid>/fd/2 of that holder. Throws
  // netns::Error saying which step failed and why.
  static HolderLog open(const std::string& record_path, NsId guarded);

  // One line, "netns-exec guard: TEXT". Best effort and never blocking: a full
  // pipe or a closed log drops the line; the guard's own stderr still has it.
  void line(std::string_view text) const;

  [[nodiscard]] pid_t pid() const { return record_.pid; }
  // The checked record of the holder whose stderr this is.
  [[nodiscard]] const HolderRecord& record() const { return record_; }

 private:
  HolderLog(UniqueFd fd, HolderRecord record) : fd_(std::move(fd)), record_(std::move(record)) {}
  UniqueFd fd_;
  HolderRecord record_;
};

}  // namespace netns::cli
