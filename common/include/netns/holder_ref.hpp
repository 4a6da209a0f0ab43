#pragma once
// "The holder process" as one value, like systemd's PidRef: the pid a record
// names, the start time it was verified with, and a pidfd for it where the
// kernel has pidfd_open. With the pidfd no pid reuse can fool a later check;
// without one the start time is compared again.
#include <sys/types.h>

#include <cstdint>

#include "netns/unique_fd.hpp"

namespace netns {

struct HolderRef {
  pid_t pid = 0;
  uint64_t start_time = 0;
  UniqueFd pidfd;  // empty where the kernel has no pidfd_open (or none was opened yet)

  // The pidfd for calls that take -1 for "none".
  [[nodiscard]] int fd() const noexcept { return pidfd ? pidfd.get() : -1; }
  // A holder was verified (a pid is set).
  explicit operator bool() const noexcept { return pid > 0; }
};

}  // namespace netns
