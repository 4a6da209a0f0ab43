#include "identity.hpp"

#include <sys/stat.h>

#include <cerrno>

#include "netns/error.hpp"
#include "netns/proc.hpp"

namespace netns::exec::detail {

namespace {
std::string ns_text(NsId id) {
  return "net:[" + std::to_string(id.ino) + "] (dev " + std::to_string(id.dev) + ")";
}

// Neither changes while this process lives (setns(CLONE_NEWPID) changes only
// the namespace of future children, not /proc/self/ns/pid), so each is read
// once: run() is called for every rbd map of a busy plugin.
const std::string& our_boot_id() {
  static const std::string boot = read_boot_id();
  return boot;
}
uint64_t our_pidns_ino() {
  static const uint64_t ino = current_pidns_id().ino;
  return ino;
}

Error mismatch_error(const std::string& shown, const std::string& why, std::string hint = {}) {
  return Error(Errc::identity_mismatch, "holder record " + quote(shown) + ": " + why,
               std::move(hint));
}
Error stale_error(const std::string& shown, const std::string& why, int err = 0) {
  std::string msg = "holder record " + quote(shown) + ": " + why;
  if (err != 0) msg += ": " + errno_text(err);
  return Error(Errc::stale_holder, std::move(msg));
}
}  // namespace

void check_record_origin(const HolderRecord& record, const std::string& cluster_id,
                         const std::string& shown) {
  // Cheapest and most explanatory first. The pid namespace comes before
  // anything about the pid: in another pid namespace the record's pid names a
  // different process for us, so every later answer would be meaningless.
  // The boot comes before the pid namespace: after a reboot the namespace
  // inodes differ too, and "written before the last reboot" is the cause.
  if (!cluster_id.empty() && record.cluster_id != cluster_id)
    throw mismatch_error(shown, "it is for cluster " + quote(record.cluster_id) + ", not " +
                              quote(cluster_id));
  const std::string& boot = our_boot_id();
  if (record.boot_id != boot)
    throw stale_error(shown, "it was written before the last reboot (boot id " + record.boot_id +
                           ", now " + boot + ")");
  uint64_t our_pidns = our_pidns_ino();
  if (record.pidns_ino != our_pidns)
    throw mismatch_error(
        shown,
        "the holder runs in another pid namespace (pid:[" + std::to_string(record.pidns_ino) +
            "], we run in pid:[" + std::to_string(our_pidns) + "]), so /proc/" +
            std::to_string(record.pid) + " in its link names another process for us, or none",
        "run the plugin (and the holder) with hostPID: true, or use the holder's socket "
        "(--socket)");
}

void check_record(const HolderRecord& record, const std::string& cluster_id, NsId opened,
                  const std::string& shown) {
  check_record_origin(record, cluster_id, shown);

  auto started = pid_start_time(record.pid);
  if (!started)
    throw stale_error(shown, "holder pid " + std::to_string(record.pid) + " is gone", ESRCH);
  if (*started != record.pid_start_time)
    throw stale_error(shown, "pid " + std::to_string(record.pid) +
                           " was reused by another process (start time " +
                           std::to_string(*started) + ", record says " +
                           std::to_string(record.pid_start_time) + ")");
  if (record.netns != opened)
    throw mismatch_error(shown, "it names " + ns_text(record.netns) + ", but the file opened " +
                              ns_text(opened));

  // The live pid must still be in the recorded namespace. Read, then confirm
  // the start time again: if the pid was reused in between, the stat may be
  // of the newcomer.
  std::string ns_link = "/proc/" + std::to_string(record.pid) + "/ns/net";
  struct stat st {};
  if (::stat(ns_link.c_str(), &st) != 0)
    throw stale_error(shown, "stat " + quote(ns_link), errno);
  if (pid_start_time(record.pid) != record.pid_start_time)
    throw stale_error(shown, "holder pid " + std::to_string(record.pid) + " exited while checking it");
  NsId live{st.st_dev, st.st_ino};
  if (live != record.netns)
    throw mismatch_error(shown, "holder pid " + std::to_string(record.pid) + " is now in " +
                              ns_text(live) + ", the record says " + ns_text(record.netns));
}

}  // namespace netns::exec::detail
