#include "check.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "holder_dir.hpp"
#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/fd_passing.hpp"
#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"
#include "netns/proc.hpp"

namespace netns::holder {

namespace {

std::string ns_text(const NsId& id) { return "net:[" + std::to_string(id.ino) + "]"; }

Error mismatch(std::string what) {
  return Error(Errc::identity_mismatch, std::move(what),
               "the files describe another namespace than the holder container's: "
               "did another holder take over this cluster ID?");
}

// The link, when the record says one was published (every holder but a
// socket-mode PID 1), must open to the probe's namespace.
void check_link(int dirfd, const HolderFileNames& names, const std::string& shown,
                const HolderRecord& record, const NsId& probe) {
  struct stat st {};
  if (::fstatat(dirfd, names.ns_link.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) throw Error::sys("stat", shown, errno);
    if (record.pid == 1 && record.socket) return;  // socket mode as PID 1: no link by design
    throw Error(Errc::not_found, quote(shown) + " does not exist, but the record says it should",
                "restart the holder pod to republish");
  }
  UniqueFd fd;
  try {
    fd = open_at(dirfd, names.ns_link, O_RDONLY, 0, shown);
  } catch (Error& e) {
    throw e.default_hint("the link names a process that is gone: the holder died without cleaning up");
  }
  NsId linked = require_netns_fd(fd.get(), shown);
  if (linked != probe)
    throw mismatch(quote(shown) + " resolves to " + ns_text(linked) + ", the probe is in " + ns_text(probe));
}

// Socket mode: the socket must hand us our own namespace.
void check_socket(int dirfd, const std::string& cluster_id, const std::string& name,
                  const std::string& shown, const NsId& probe) {
  UniqueFd sock = make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
  // An exec probe must not hang on a wedged holder; kubelet's timeout is the
  // backstop, this is the friendlier message.
  timeval limit{5, 0};
  ::setsockopt(sock.get(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  std::string via_fd = "/proc/self/fd/" + std::to_string(dirfd) + "/" + name;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (via_fd.size() >= sizeof addr.sun_path)
    throw Error(Errc::invalid_argument, "socket path " + quote(via_fd) + " is too long");
  std::memcpy(addr.sun_path, via_fd.c_str(), via_fd.size() + 1);
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    throw Error::sys("connect", shown, errno, "is the holder's socket loop alive?");
  ReceivedFd got = receive_fd(sock.get(), shown);
  NsId handed = require_netns_fd(got.fd.get(), shown);
  if (got.header.cluster_id != cluster_id || got.header.netns != handed)
    throw mismatch(quote(shown) + " sent a header for cluster " + quote(got.header.cluster_id) + " " +
                   ns_text(got.header.netns) + " with a descriptor for " + ns_text(handed));
  if (handed != probe)
    throw mismatch(quote(shown) + " hands out " + ns_text(handed) + ", the probe is in " + ns_text(probe));
}

// True when some process holds <ID>.lock (LOCK_SH|LOCK_NB fails with EWOULDBLOCK).
bool lock_is_held(int dirfd, const std::string& name, const std::string& shown) {
  auto fd = open_at_if_exists(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, shown);
  if (!fd) return false;
  if (::flock(fd->get(), LOCK_SH | LOCK_NB) == 0) return false;  // released when fd closes
  if (errno == EWOULDBLOCK) return true;
  throw Error::sys("flock", shown, errno);
}

}  // namespace

std::string run_check(const Options& o) {
  try {
    HolderFileNames names = holder_file_names(o.cluster_id);
    UniqueFd dir = open_holder_dir(o.dir, false);
    auto shown = [&](const std::string& name) { return join_path(o.dir, name); };
    NsId probe = current_netns_id();
    uint64_t probe_pidns = current_pidns_id().ino;

    auto record = read_record_at(dir.get(), names.record, shown(names.record));
    if (!record)
      throw Error(Errc::not_found, quote(shown(names.record)) + " does not exist",
                  "no holder has published here (yet); is --dir the holder's directory?");
    if (record->cluster_id != o.cluster_id)
      throw mismatch(quote(shown(names.record)) + " describes cluster " + quote(record->cluster_id));
    if (record->netns != probe)
      throw mismatch(quote(shown(names.record)) + " describes " + ns_text(record->netns) +
                     ", the probe is in " + ns_text(probe));
    check_link(dir.get(), names, shown(names.ns_link), *record, probe);
    if (record->socket) check_socket(dir.get(), o.cluster_id, *record->socket, shown(*record->socket), probe);

    // Liveness. In the record's own pid namespace the pid and its start time
    // name the process exactly; from another one the pid means nothing to us,
    // and the lock, held for the holder's whole life, is the proof.
    std::string alive;
    if (record->pidns_ino == probe_pidns) {
      auto start = pid_start_time(record->pid);
      if (!start)
        throw Error(Errc::stale_holder, "holder pid " + std::to_string(record->pid) + " is gone",
                    "the holder died without cleaning up; restart the holder pod");
      if (*start != record->pid_start_time)
        throw Error(Errc::stale_holder,
                    "pid " + std::to_string(record->pid) + " is another process now (start time " +
                        std::to_string(*start) + ", the record says " +
                        std::to_string(record->pid_start_time) + ")",
                    "the holder died without cleaning up; restart the holder pod");
      alive = "holder pid " + std::to_string(record->pid) + " is alive";
    } else {
      alive = "the probe is in another pid namespace (pid:[" + std::to_string(probe_pidns) +
              "]) than the holder (pid:[" + std::to_string(record->pidns_ino) +
              "]), so it relies on the namespace match and the lock: ";
    }
    if (!lock_is_held(dir.get(), names.lock, shown(names.lock)))
      throw Error(Errc::stale_holder, "nobody holds " + quote(shown(names.lock)),
                  "the holder is not running; restart the holder pod");
    if (record->pidns_ino != probe_pidns) alive += quote(shown(names.lock)) + " is held";
    return "ok: cluster " + quote(o.cluster_id) + ": the published files match this namespace " +
           ns_text(probe) + "; " + alive;
  } catch (Error& e) {
    throw e.context("cluster " + quote(o.cluster_id));
  }
}

}  // namespace netns::holder
