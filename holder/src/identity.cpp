#include "identity.hpp"

#include <unistd.h>

#include <ctime>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/kernel_ids.hpp"
#include "netns/proc.hpp"

namespace netns::holder {

Identity own_identity() {
  Identity self;
  self.pid = ::getpid();
  try {
    self.pid_start_time = parse_stat_start_time(read_file("/proc/self/stat", 4096));
  } catch (Error& e) {
    throw e.default_hint("is /proc mounted in the holder's container?");
  }
  self.netns = current_netns_id();
  self.pidns_ino = current_pidns_id().ino;
  // Read once, at start-up, from our own process and namespace: a reader
  // compares them with what its pidfd and namespace descriptor say.
  try {
    UniqueFd pidfd = make_pidfd(self.pid);
    self.pidfs_ino = pidfs_inode(pidfd.get());
  } catch (const Error&) {
    // No pidfd_open (ENOSYS): there is no pidfs either.
  }
  self.netns_cookie = own_netns_cookie();
  return self;
}

PidNsVerdict judge_pid_namespace(const Identity& self) {
  // The initial pid namespace has a fixed inode, so this is a feature test,
  // not a guess. Being PID 1 of a non-initial namespace is certain proof that
  // /proc/<our pid> means another process to the plugin; a non-initial
  // namespace alone is not (kind nodes run hostPID pods in one), so that is
  // only a warning: the executor compares the record's pidns_ino with its own.
  if (self.pidns_ino == kInitialPidNsIno) return PidNsVerdict::initial;
  return self.pid == 1 ? PidNsVerdict::child_pid1 : PidNsVerdict::child_warn;
}

std::string ns_link_target(const Identity& self) {
  return "/proc/" + std::to_string(self.pid) + "/ns/net";
}

HolderRecord make_record(const Identity& self, const std::string& cluster_id,
                         const std::optional<std::string>& socket_name) {
  HolderRecord r;
  r.cluster_id = cluster_id;
  r.pid = self.pid;
  r.pid_start_time = self.pid_start_time;
  r.netns = self.netns;
  r.pidns_ino = self.pidns_ino;
  r.boot_id = read_boot_id();
  r.created_unix = static_cast<uint64_t>(::time(nullptr));
  r.socket = socket_name;
  r.holder_pidfs_ino = self.pidfs_ino;
  r.netns_cookie = self.netns_cookie;
  return r;
}

}  // namespace netns::holder
