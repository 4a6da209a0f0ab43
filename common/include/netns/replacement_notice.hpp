#pragma once
// <ID>.replacing, next to the holder's record: "this holder's container is
// about to be replaced in place (its image patched), not deleted". The kubelet
// runs the preStop guard for both, and nothing the guard can see tells them
// apart: only whoever patches the pod knows. Without the notice the guard
// holds an in-place upgrade of a busy holder for --max-wait, for nothing, since
// the pod sandbox keeps the namespace. The notice names one holder process
// (pid and start time) and expires, so it cannot speak for a later holder or
// outlive the replacement it announces.
//
// Format (version 1), a flat JSON object, every field required:
//   version         1
//   pid             the holder's pid, as in its record
//   pid_start_time  the holder's start time, as in its record
//   until_unix      seconds since the epoch after which the notice is void
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace netns {

struct ReplacementNotice {
  static constexpr uint64_t kVersion = 1;
  pid_t pid = 0;
  uint64_t pid_start_time = 0;
  uint64_t until_unix = 0;
};

// "<dir>/<ID>.replacing" for "<dir>/<ID>.holder.json"; throws
// Error(invalid_argument) for a path that is not a holder record's.
std::string notice_path(const std::string& record_path);

// Written atomically (0644), replacing an older notice.
void write_notice(const std::string& record_path, const ReplacementNotice& notice);

// nullopt when there is none. Throws for a damaged or foreign (not root's) one.
std::optional<ReplacementNotice> read_notice(const std::string& record_path);

// Removes the notice, if any (it is used once).
void remove_notice(const std::string& record_path);

}  // namespace netns
