#pragma once
// Who this holder is, as the record describes it, and whether its /proc/<pid>
// link would mean the same process to the plugin.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"

namespace netns::holder {

struct Identity {
  pid_t pid = 0;                // in our own pid namespace
  uint64_t pid_start_time = 0;  // field 22 of /proc/self/stat
  NsId netns;
  uint64_t pidns_ino = 0;
  // Never reused within a boot; nullopt where the kernel has none (kernel_ids.hpp).
  std::optional<uint64_t> pidfs_ino;
  std::optional<uint64_t> netns_cookie;
};

// Reads /proc/self (never /proc/<pid>: when /proc belongs to another pid
// namespace than ours, as under `unshare --pid --fork` without a new /proc,
// /proc/<our pid> is a different process).
Identity own_identity();

enum class PidNsVerdict {
  initial,     // the initial pid namespace: /proc/<pid> means us to everyone
  child_warn,  // a child pid namespace, not its init: fine on kind-like nodes whose hostPID is not
               // initial
  child_pid1,  // PID 1 of a child pid namespace: /proc/1 names the host's init to the plugin
};
PidNsVerdict judge_pid_namespace(const Identity& self);

// The text of the <ID>.net.ns symlink.
std::string ns_link_target(const Identity& self);

HolderRecord make_record(const Identity& self, const std::string& cluster_id,
                         const std::optional<std::string>& socket_name);

}  // namespace netns::holder
