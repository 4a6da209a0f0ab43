#include "check.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "holder_dir.hpp"
#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/fd_passing.hpp"
#include "netns/holder_record.hpp"
#include "netns/net_snapshot.hpp"
#include "netns/nsfd.hpp"
#include "netns/trust.hpp"
#include "netns/unix_address.hpp"
#include "readiness.hpp"

namespace netns::holder {

namespace {

// The probe's own rule: the files must describe the namespace it runs in.
// Run by hand from the node (or another pod) it is outside the holder's
// namespace and always fails: say that first, as it is the likelier cause
// of a failure seen in a terminal (the readiness probe runs in the holder's
// container, where the mismatch means a second holder for the ID).
void require_probe_ns(const NsId& got, const NsId& probe, const std::string& what) {
  if (got == probe) return;
  constexpr const char* kWhere =
      "run it where the readiness probe does, in the holder's container: kubectl exec "
      "<holder pod> -c holder -- netns-holder check --cluster-id ID --dir DIR (to look into "
      "the holder's namespace from the node: netns-exec inspect or doctor)";
  if (trust::is_host_netns(probe, probe) == trust::HostNetns::yes)
    throw Error(Errc::identity_mismatch,
                what + " " + ns_text(got) +
                    ", but this check runs outside the holder's "
                    "namespace, in the node's own " +
                    ns_text(probe),
                kWhere);
  throw Error(Errc::identity_mismatch,
              what + " " + ns_text(got) + ", but this check runs in " + ns_text(probe) +
                  ": outside the holder's namespace",
              std::string(kWhere) +
                  "; if it did run in the holder's container, another holder took over this "
                  "cluster ID: look for a second holder DaemonSet for it");
}

void require(const trust::Finding& f) {
  if (!f.ok) throw f.error();
}

// The link, when the record says one was published (every holder but a
// socket-mode PID 1), must be trusted and open to the probe's namespace.
void check_link(int dirfd, const HolderFileNames& names, const std::string& shown,
                const HolderRecord& record, const NsId& probe, const trust::Owners& owners) {
  struct stat st {};
  if (::fstatat(dirfd, names.ns_link.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) throw Error::sys("stat", shown, errno);
    if (record.pid == 1 && record.socket) return;  // socket mode as PID 1: no link by design
    throw Error(Errc::not_found, quote(shown) + " does not exist, but the record says it should",
                "restart the holder pod to republish");
  }
  require(trust::file_owner(trust::kLinkOwner, st, "link", shown, owners));
  UniqueFd fd;
  try {
    fd = open_at(dirfd, names.ns_link, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0, shown);
  } catch (Error& e) {
    throw e.default_hint(
        "the link names a process that is gone: the holder died without cleaning up");
  }
  const trust::NamespaceFacts linked = trust::read_namespace(fd.get(), shown);
  require(trust::network_namespace(linked));
  require_probe_ns(linked.id, probe, quote(shown) + " resolves to");
}

// Socket mode: the socket must be trusted, served by the holder, and hand us
// our own namespace.
void check_socket(int dirfd, const std::string& cluster_id, const std::string& name,
                  const std::string& shown, const NsId& probe, const HolderRecord& record,
                  const trust::Owners& owners) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    throw Error::sys("stat", shown, errno);
  require(trust::file_owner(trust::kSocketOwner, st, "holder socket", shown, owners));
  UniqueFd sock = make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
  request_sender_identity(sock.get());
  // An exec probe must not hang on a wedged holder; kubelet's timeout is the
  // backstop, this is the friendlier message.
  timeval limit{5, 0};
  ::setsockopt(sock.get(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  if (int err = connect_unix(sock.get(), unix_address(fd_path(dirfd, name), shown)); err != 0)
    throw Error::sys("connect", shown, err, "is the holder's socket loop alive?");
  require(trust::socket_server(sock.get(), shown, owners, &record));
  ReceivedFd got = receive_fd(sock.get(), shown);
  require(trust::socket_sender(got.sender, shown, owners, &record));
  const trust::NamespaceFacts handed = trust::read_namespace(got.fd.get(), shown);
  require(trust::network_namespace(handed));
  require(trust::header_matches(got.header, handed.id, cluster_id, shown));
  require_probe_ns(handed.id, probe, quote(shown) + " hands out");
}

// True when some process holds <ID>.lock (LOCK_SH|LOCK_NB fails with EWOULDBLOCK).
bool lock_is_held(int dirfd, const std::string& name, const std::string& shown,
                  const trust::Owners& owners) {
  auto fd = open_regular_at_if_exists(dirfd, name, O_NOFOLLOW, shown);
  if (!fd) return false;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) throw Error::sys("fstat", shown, errno);
  require(trust::file_owner(trust::kLockOwner, st, "lock", shown, owners));
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
    const trust::Owners owners = holder_owners();
    require(trust::directory_chain(dir.get(), o.dir, owners));
    // The namespace this probe runs in, read once: its identity for the
    // files' words, its facts for the record's namespace ID.
    const char* own_path = "/proc/thread-self/ns/net";
    const trust::NamespaceFacts own =
        trust::read_namespace(open_fd(own_path, O_RDONLY).get(), own_path);
    if (own.not_netns) throw *own.not_netns;
    const NsId probe = own.id;

    struct stat st {};
    auto record = read_record_at(dir.get(), names.record, shown(names.record), &st);
    if (!record)
      throw Error(Errc::not_found, quote(shown(names.record)) + " does not exist",
                  "no holder has published here (yet); is --dir the holder's directory?");
    // The one judge (netns/trust.hpp).
    const std::string record_shown = shown(names.record);
    const std::string lock_shown = shown(names.lock);
    struct stat lock_st {};
    const bool lock_present =
        ::fstatat(dir.get(), names.lock.c_str(), &lock_st, AT_SYMLINK_NOFOLLOW) == 0;
    trust::Gathered g;
    g.record_shown = record_shown;
    g.record = &*record;
    g.record_st = &st;
    g.cluster_id = o.cluster_id;
    g.opened = probe;
    g.opened_ns = &own;
    g.lock_st = lock_present ? &lock_st : nullptr;
    g.lock_shown = lock_shown;
    // In the record's own pid namespace the pid (a pidfd) and its start time
    // name the process exactly; from another one the pid means nothing to
    // us, and the lock, held for the holder's whole life, is the proof.
    trust::Policy policy;
    policy.owners = owners;
    policy.pid = trust::Policy::Pid::probe;
    // The probe's own rules, gathered as the judge's file step:
    // the files must describe the namespace it runs in. The socket a record
    // names is connected to only once the record's origin is judged trusted.
    try {
      require_probe_ns(record->netns, probe, quote(record_shown) + " describes");
      check_link(dir.get(), names, shown(names.ns_link), *record, probe, owners);
      if (record->socket && !trust::first_failure(trust::judge(g, policy)))
        check_socket(dir.get(), o.cluster_id, *record->socket, shown(*record->socket), probe,
                     *record, owners);
    } catch (const Error& e) {
      g.file.push_back(trust::fail(trust::kIdentity, e));
    }
    HolderRef holder;
    for (const trust::Finding& f : trust::judge_holder(g, policy, holder))
      if (!f.ok) throw f.error();

    std::string alive;
    const bool same_pidns = record->pidns_ino == current_pidns_id().ino;
    if (same_pidns) {
      alive = "holder pid " + std::to_string(record->pid) + " is alive";
    } else {
      alive = "the probe is in another pid namespace (" + ns_text(current_pidns_id(), "pid") +
              ") than the holder (" + ns_text(NsId{0, record->pidns_ino}, "pid") +
              "), so it relies on the namespace match and the lock: ";
    }
    if (!lock_is_held(dir.get(), names.lock, shown(names.lock), owners))
      throw Error(Errc::stale_holder, "nobody holds " + quote(shown(names.lock)),
                  "the holder is not running; restart the holder pod");
    if (!same_pidns) alive += quote(shown(names.lock)) + " is held";
    if (!o.require_interfaces.empty()) {
      // The probe runs in the holder's namespace: it reads the interfaces itself.
      UniqueFd route = open_route_socket(0, false);
      std::string why = interfaces_not_ready(
          read_net_snapshot(route.get(), "the probe's network namespace"), o.require_interfaces);
      if (!why.empty())
        throw Error(Errc::not_found, "storage network not ready: " + why,
                    "the pod's Multus attachment (k8s.v1.cni.cncf.io/networks) and the Multus "
                    "daemon on this node");
      alive += "; required interfaces ready";
    }
    if (!o.require_reachable.empty()) {
      // Probed again on every run (the holder itself probes only before it
      // publishes: its pause loop has no timers), bounded well inside the
      // probe's timeoutSeconds.
      ReachOutcome r = probe_reachable(o.require_reachable, kReachAttemptMs, -1);
      if (!r.reached)
        throw Error(Errc::timeout, "no monitor reachable from this namespace: " + r.summary,
                    "the storage network's route to the monitors, and whether the monitors run");
      alive += "; monitor reachable: " + r.summary;
    }
    return "ok: cluster " + quote(o.cluster_id) + ": the published files match this namespace " +
           ns_text(probe) + "; " + alive;
  } catch (Error& e) {
    throw e.context("cluster " + quote(o.cluster_id));
  }
}

}  // namespace netns::holder
