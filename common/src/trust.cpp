#include "netns/trust.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <optional>
#include <string>

#include <sys/sysmacros.h>

#include "netns/fd.hpp"
#include "netns/kernel_ids.hpp"
#include "netns/proc.hpp"

// PIDFD_GET_NET_NAMESPACE (Linux 6.11): the pidfd's process's network
// namespace, with no /proc lookup and no pid to reuse.
#ifndef PIDFD_GET_NET_NAMESPACE
#define PIDFD_GET_NET_NAMESPACE _IO(0xFF, 4)
#endif

namespace netns::trust {

namespace {

// Neither changes while this process lives (setns(CLONE_NEWPID) changes only
// the namespace of future children), so each is read once: resolve() runs for
// every rbd map of a busy plugin.
const std::string& our_boot_id() {
  static const std::string boot = read_boot_id();
  return boot;
}
uint64_t our_pidns_ino() {
  static const uint64_t ino = current_pidns_id().ino;
  return ino;
}

// The process's root directory (device, inode), read once.
struct DirId {
  dev_t dev = 0;
  ino_t ino = 0;
};
DirId our_root() {
  static const DirId root = [] {
    struct stat st {};
    if (::stat("/", &st) != 0) return DirId{};
    return DirId{st.st_dev, st.st_ino};
  }();
  return root;
}

// The path a descriptor names, for messages only (never opened again).
std::string fd_shown(int fd) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("?");
}

std::string pid_ns_text(uint64_t ino) { return ns_text(NsId{0, ino}, "pid"); }

std::string record_prefix(std::string_view shown) { return "holder record " + quote(shown) + ": "; }

// Also a holder that has exited but is not yet reaped: pidfd_open and its
// /proc/PID/stat still work on a zombie, its namespaces are already gone.
std::string exited_while_checking(const HolderRecord& r, std::string_view shown) {
  return record_prefix(shown) + "holder pid " + std::to_string(r.pid) +
         " is gone: it exited while it was checked";
}

constexpr const char* kRestartHint = "the holder died without cleaning up; restart the holder pod";

}  // namespace

NamespaceFacts read_namespace(int fd, std::string_view shown) {
  NamespaceFacts ns;
  try {
    ns.id = require_netns_fd(fd, shown);
  } catch (const Error& e) {
    ns.not_netns = e;  // the ioctls below could mean something else to what this is
    return ns;
  }
  int user = ::ioctl(fd, NS_GET_USERNS);
  if (user < 0) {
    ns.owner_errno = errno;
  } else {
    UniqueFd owner(user);
    ns.owner = ns_id_of_fd(owner.get(), shown);
  }
  ns.cookie = namespace_cookie_of_fd(fd);
  return ns;
}

Finding network_namespace(const NamespaceFacts& ns) {
  if (ns.not_netns)
    return fail(kIsNetns, ns.not_netns->code(), ns.not_netns->message(), ns.not_netns->hint());
  return pass_with(kIsNetns, [&] { return ns_text(ns.id); });
}

Finding initial_user_namespace(const NamespaceFacts& ns, std::string_view shown, bool allow_other) {
  if (ns.owner_errno != 0) {
    // EPERM: the owner is outside our own user namespace, which then is not
    // the initial one either; setns would fail for lack of privilege there.
    if (allow_other)
      return pass(kInitialUserns, "not checked (allowed): " + errno_text(ns.owner_errno));
    return fail(kInitialUserns, ns.owner_errno == EPERM ? Errc::wrong_namespace : Errc::system,
                "ioctl(NS_GET_USERNS) " + quote(shown) + ": " + errno_text(ns.owner_errno),
                "run netns-exec in the node's initial user namespace");
  }
  if (ns.owner.ino == kInitialUserNsIno)
    return pass_with(kInitialUserns, [&] { return ns_text(ns.owner, "user"); });
  if (allow_other)
    return pass(kInitialUserns, ns_text(ns.owner, "user") + " (another user namespace, allowed)");
  return fail(kInitialUserns, Errc::wrong_namespace,
              quote(shown) + " is owned by " + ns_text(ns.owner, "user") +
                  ", not by the initial user namespace: any user can create such a namespace "
                  "(unshare -Urn), and the kernel's rbd and ceph clients need one owned by the "
                  "initial user namespace",
              "point it at the netns-holder's namespace (netns-exec --allow-userns permits this "
              "deliberately)");
}

Finding not_own_namespace(NsId id, NsId own, std::string_view shown, bool allow) {
  if (id != own) return pass_with(kNotOwn, [&] { return "ours is " + ns_text(own); });
  if (allow) return pass(kNotOwn, "it is our own " + ns_text(own) + " (allowed)");
  return fail(kNotOwn, Errc::own_namespace,
              quote(shown) + " is this process's own network namespace " + ns_text(own) +
                  ": work done there would die with the caller, which is what the holder is for",
              "is the link published by the netns-holder pod, not by the plugin itself? "
              "(netns-exec --allow-own-netns permits this deliberately)");
}

HostNetns is_host_netns(NsId id, NsId own) {
  if (id.ino == kInitialNetNsIno) return HostNetns::yes;
  // Does this kernel give init_net its fixed inode? Then no match is an answer.
  // Learned once, by any thread: relaxed is enough for a fact that only
  // ever goes from false to true.
  static std::atomic<bool> fixed_inode{false};
  if (own.ino == kInitialNetNsIno) fixed_inode.store(true, std::memory_order_relaxed);
  if (fixed_inode.load(std::memory_order_relaxed)) return HostNetns::no;
  // With hostPID, /proc/1 is the host's init, so its namespace is the host's.
  if (our_pidns_ino() != kInitialPidNsIno) return HostNetns::unknown;
  struct stat st {};
  if (::stat("/proc/1/ns/net", &st) != 0) return HostNetns::unknown;
  if (st.st_ino == kInitialNetNsIno) {
    fixed_inode.store(true, std::memory_order_relaxed);
    return HostNetns::no;
  }
  return NsId{st.st_dev, st.st_ino} == id ? HostNetns::yes : HostNetns::no;
}

Finding not_host_namespace(NsId id, NsId own, std::string_view shown, bool allow) {
  switch (is_host_netns(id, own)) {
    case HostNetns::no:
      return pass_with(kNotHost, [&] { return "the host's is not " + ns_text(id); });
    case HostNetns::unknown: {
      Finding f = pass(kNotHost,
                       "cannot be known here: this kernel gives the host's namespace no "
                       "fixed inode and /proc/1 is not the host's init (no hostPID)");
      f.known = false;
      return f;
    }
    case HostNetns::yes:
      break;
  }
  if (allow) return pass(kNotHost, ns_text(id) + " is the host's network namespace (allowed)");
  return fail(kNotHost, Errc::wrong_namespace,
              quote(shown) + " is the host's network namespace " + ns_text(id) +
                  ": a holder keeps a pod's namespace, and work done in the host's is not what "
                  "the holder is for",
              "is the netns-holder pod running with hostNetwork, or is the link a host process's? "
              "(--allow-host-netns permits this deliberately)");
}

std::string directory_problem(const struct stat& st, bool sticky_ok, bool read_only,
                              const Owners& owners) {
  if (!owners.trusted(st.st_uid))
    return "is owned by uid " + std::to_string(st.st_uid) + ", not " + owners.text();
  const bool writable = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (writable && !read_only && !(sticky_ok && (st.st_mode & S_ISVTX) != 0))
    return "is writable by group or others";
  return {};
}

std::string mode_octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

namespace {
// A level of the chain as a path relative to the directory: "..", "../..".
std::string up_path(size_t level) {
  std::string up;
  for (size_t i = 0; i < level; ++i) up += i == 0 ? ".." : "/..";
  return up;
}
}  // namespace

DirectoryChain read_directory_chain(int dirfd) {
  DirectoryChain chain;
  struct stat st {};
  if (::fstat(dirfd, &st) != 0) {
    chain.failed_errno = errno;
    return chain;
  }
  // Upwards through "..", "../..", ... relative to the directory that was
  // opened: one fstatat per level, and no path is opened.
  // Bounded: a path has at most PATH_MAX/2 components.
  for (size_t level = 1; level <= 2048; ++level) {
    chain.levels.push_back(st);
    // Our root, known from the start: no stat of its ".." to find that out
    // (after a chroot the comparison below still ends the walk).
    if (st.st_dev == our_root().dev && st.st_ino == our_root().ino) break;
    struct stat up_st {};
    if (::fstatat(dirfd, up_path(level).c_str(), &up_st, 0) != 0) {
      chain.failed_errno = errno;
      break;
    }
    if (up_st.st_dev == st.st_dev && up_st.st_ino == st.st_ino) break;  // the root
    st = up_st;
  }
  return chain;
}

Finding directory_chain(const DirectoryChain& chain, int dirfd, std::string_view shown,
                        const Owners& owners) {
  for (size_t level = 0; level < chain.levels.size(); ++level) {
    const struct stat& st = chain.levels[level];
    const std::string why = directory_problem(st, level > 0, false, owners);
    if (why.empty()) continue;
    // Judged: the failing level's name is the one path read, for the message.
    std::string which = quote(shown);
    if (level > 0) {
      const std::string up = up_path(level);
      UniqueFd at(::openat(dirfd, up.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      which = quote(at ? fd_shown(at.get()) : std::string(shown) + "/" + up) + " (above " +
              quote(shown) + ")";
    }
    return fail(kDirTrusted, Errc::untrusted,
                "directory " + which + " " + why + " (mode " + mode_octal(st.st_mode) +
                    "): whoever can write it can plant a holder's files",
                "chown root and chmod go-w that directory (a sticky directory such as "
                "/tmp is fine above a root-owned one)" +
                    owners.or_trust("its owner"));
  }
  // No level read is no proof: a chain that was never read fails too.
  if (chain.levels.empty())
    return fail(kDirTrusted, Errc::system,
                chain.failed_errno != 0
                    ? "fstat " + quote(shown) + ": " + errno_text(chain.failed_errno)
                    : "the directories above " + quote(shown) + " were not read");
  if (chain.failed_errno != 0) {
    return fail(kDirTrusted, Errc::system,
                "stat " + quote(std::string(shown) + "/" + up_path(chain.levels.size())) + ": " +
                    errno_text(chain.failed_errno));
  }
  return pass_with(kDirTrusted, [&] {
    return quote(shown) + " and every directory above it: owned by " + owners.text() +
           ", not writable by others";
  });
}

Finding directory_chain(int dirfd, std::string_view shown, const Owners& owners) {
  return directory_chain(read_directory_chain(dirfd), dirfd, shown, owners);
}

Finding file_owner(const char* check, const struct stat& st, std::string_view what,
                   std::string_view shown, const Owners& owners) {
  if (owners.trusted(st.st_uid))
    return pass_with(
        check, [&] { return std::string(what) + " owned by uid " + std::to_string(st.st_uid); });
  return fail(check, Errc::untrusted,
              std::string(what) + " " + quote(shown) + " is owned by uid " +
                  std::to_string(st.st_uid) + " (mode " + mode_octal(st.st_mode) + "), not " +
                  owners.text() + ": only the holder writes these files",
              "remove it and restart the holder pod" + owners.or_trust("the holder's uid"));
}

Finding config_file(const struct stat& st, std::string_view shown, const Owners& owners) {
  const bool writable = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (owners.trusted(st.st_uid) && !writable)
    return pass_with(kConfigTrusted, [&] {
      return quote(shown) + " owned by uid " + std::to_string(st.st_uid) + ", mode " +
             mode_octal(st.st_mode);
    });
  std::string why = !owners.trusted(st.st_uid)
                        ? "is owned by uid " + std::to_string(st.st_uid) + ", not " + owners.text()
                        : std::string("is writable by group or others");
  return fail(kConfigTrusted, Errc::untrusted,
              "ceph-csi config " + quote(shown) + " " + why + " (mode " + mode_octal(st.st_mode) +
                  "): whoever can write it chooses the namespace every command runs in",
              "mount the ceph-csi-config ConfigMap there (root-owned, mode 0644), or chown root "
              "and chmod go-w it");
}

Finding record_for_cluster(const HolderRecord& r, std::string_view cluster_id,
                           std::string_view shown) {
  if (cluster_id.empty() || r.cluster_id == cluster_id)
    return pass_with(kRecordCluster, [&] { return "cluster " + quote(r.cluster_id); });
  return fail(kRecordCluster, Errc::identity_mismatch,
              record_prefix(shown) + "it is for cluster " + quote(r.cluster_id) + ", not " +
                  quote(cluster_id));
}

Finding record_this_boot(const HolderRecord& r, std::string_view shown) {
  const std::string& boot = our_boot_id();
  if (r.boot_id == boot) return pass_with(kRecordBoot, [&] { return "boot id " + boot; });
  return fail(kRecordBoot, Errc::stale_holder,
              record_prefix(shown) + "it was written before the last reboot (boot id " + r.boot_id +
                  ", now " + boot + ")",
              "the holder has not started since the reboot: is the holder pod running?");
}

Finding record_this_pid_namespace(const HolderRecord& r, std::string_view shown) {
  uint64_t ours = our_pidns_ino();
  if (r.pidns_ino == ours) return pass_with(kRecordPidns, [&] { return pid_ns_text(ours); });
  return fail(
      kRecordPidns, Errc::identity_mismatch,
      record_prefix(shown) + "the holder runs in another pid namespace (" +
          pid_ns_text(r.pidns_ino) + ", we run in " + pid_ns_text(ours) + "), so /proc/" +
          std::to_string(r.pid) + " in its link names another process for us, or none",
      "run the plugin (and the holder) with hostPID: true, or use the holder's socket (--socket)");
}

namespace {
bool pidfd_exited(int pidfd) {
  pollfd p{pidfd, POLLIN, 0};
  int n;
  do {
    n = ::poll(&p, 1, 0);
  } while (n < 0 && errno == EINTR);
  return n != 0;  // a pidfd becomes readable when its process exits
}
}  // namespace

Finding holder_alive(const HolderRecord& r, const HolderFacts& h, std::string_view shown) {
  if (!h.start_time)
    return fail(kHolderAlive, Errc::stale_holder,
                record_prefix(shown) + "holder pid " + std::to_string(r.pid) +
                    " is gone: " + errno_text(ESRCH),
                kRestartHint);
  if (*h.start_time != r.pid_start_time)
    return fail(kHolderAlive, Errc::stale_holder,
                record_prefix(shown) + "pid " + std::to_string(r.pid) +
                    " was reused by another process (start time " + std::to_string(*h.start_time) +
                    ", record says " + std::to_string(r.pid_start_time) + ")",
                kRestartHint);
  return pass_with(kHolderAlive, [&] {
    return "pid " + std::to_string(r.pid) + ", start time " + std::to_string(r.pid_start_time);
  });
}

Finding record_names(const HolderRecord& r, NsId opened, std::string_view shown) {
  if (r.netns == opened)
    return pass_with(kIdentity, [&] { return "the record names " + ns_text(opened); });
  return fail(kIdentity, Errc::identity_mismatch,
              record_prefix(shown) + "it names " + ns_text(r.netns) + " (dev " +
                  std::to_string(r.netns.dev) + "), but the file opened " + ns_text(opened) +
                  " (dev " + std::to_string(opened.dev) + ")",
              "a stale link or record: restart the holder pod so it republishes both");
}

Finding identity_matches(const HolderRecord& r, NsId opened, const HolderFacts& h,
                         std::string_view shown) {
  if (Finding named = record_names(r, opened, shown); !named.ok) return named;
  if (h.exited)
    return fail(kIdentity, Errc::stale_holder, exited_while_checking(r, shown), kRestartHint);
  if (!h.netns)
    return fail(kIdentity, Errc::stale_holder, record_prefix(shown) + h.netns_unread, kRestartHint);
  if (*h.netns != r.netns)
    return fail(kIdentity, Errc::identity_mismatch,
                record_prefix(shown) + "holder pid " + std::to_string(r.pid) + " is now in " +
                    ns_text(*h.netns) + ", the record says " + ns_text(r.netns),
                "the holder moved to another namespace: restart the holder pod");
  return pass_with(kIdentity,
                   [&] { return "record, link and live holder all name " + ns_text(opened); });
}

namespace {
Finding unknown(const char* check, std::string detail) {
  Finding f = pass(check, std::move(detail));
  f.known = false;
  return f;
}
constexpr const char* kV1Record = "not checked: a version-1 record names no ";
}  // namespace

Finding holder_is_recorded_process(const HolderRecord& r, const HolderFacts& h,
                                   std::string_view shown) {
  if (!r.holder_pidfs_ino)
    return unknown(kHolderUnique,
                   r.version < 2 ? std::string(kV1Record) + "pidfs inode"
                                 : std::string("not checked: the holder's kernel had no pidfs"));
  const std::optional<uint64_t>& live = h.pidfs_ino;
  if (!live)
    return unknown(kHolderUnique, "not checked: this kernel gives no pidfd on pidfs (Linux 6.9+)");
  if (*live == *r.holder_pidfs_ino)
    return pass_with(kHolderUnique, [&] {
      return "pid " + std::to_string(r.pid) + ", pidfs inode " + std::to_string(*live);
    });
  return fail(kHolderUnique, Errc::stale_holder,
              record_prefix(shown) + "pid " + std::to_string(r.pid) +
                  " is not the process that wrote the record (pidfs inode " +
                  std::to_string(*live) + ", the record says " +
                  std::to_string(*r.holder_pidfs_ino) +
                  "): the holder exited and another process took its pid and start time",
              kRestartHint);
}

Finding namespace_cookie_matches(const HolderRecord& r, const NamespaceFacts& ns,
                                 std::string_view shown) {
  if (!r.netns_cookie)
    return unknown(kNamespaceCookie,
                   r.version < 2
                       ? std::string(kV1Record) + "namespace cookie"
                       : std::string("not checked: the holder's kernel had no netns cookie"));
  const std::optional<uint64_t>& opened = ns.cookie;
  if (!opened)
    return unknown(kNamespaceCookie, "not checked: this kernel has no NS_GET_ID (Linux 6.18+)");
  if (*opened == *r.netns_cookie)
    return pass_with(kNamespaceCookie,
                     [&] { return "namespace cookie " + std::to_string(*opened); });
  return fail(kNamespaceCookie, Errc::identity_mismatch,
              record_prefix(shown) + "the namespace opened has cookie " + std::to_string(*opened) +
                  ", the record names cookie " + std::to_string(*r.netns_cookie) +
                  ": it is another namespace that got the same inode number",
              "a stale link or record: restart the holder pod so it republishes both");
}

namespace {
// The pids of the FLOCK entries of /proc/locks on (dev, ino), as this
// process's /proc shows them ("1: FLOCK  ADVISORY  WRITE 1234 00:1a:5678 0 EOF";
// waiters, "1: -> FLOCK ...", hold nothing and are skipped).
std::vector<uint64_t> flock_holders(const std::string& table, dev_t dev, ino_t ino) {
  // The kernel's "%02x:%02x:%lu" of the device's major, minor and the inode.
  char key[64];
  std::snprintf(key, sizeof key, "%02x:%02x:%lu", major(dev), minor(dev),
                static_cast<unsigned long>(ino));
  std::vector<uint64_t> pids;
  size_t at = 0;
  while (at < table.size()) {
    size_t end = table.find('\n', at);
    if (end == std::string::npos) end = table.size();
    std::string_view line(table.data() + at, end - at);
    at = end + 1;
    // Fields after "N:": type, advisory, access, pid, dev:ino, start, end.
    std::vector<std::string_view> fields;
    for (size_t i = 0; i < line.size();) {
      while (i < line.size() && line[i] == ' ') ++i;
      size_t j = i;
      while (j < line.size() && line[j] != ' ') ++j;
      if (j > i) fields.push_back(line.substr(i, j - i));
      i = j;
    }
    if (fields.size() < 6 || fields[1] != "FLOCK" || fields[5] != key) continue;
    uint64_t pid = 0;
    for (char c : fields[4])
      pid = c >= '0' && c <= '9' ? pid * 10 + static_cast<uint64_t>(c - '0') : pid;
    pids.push_back(pid);
  }
  return pids;
}
}  // namespace

Finding lock_held_by_holder(const HolderRecord& r, const HolderFacts& h, const struct stat* lock_st,
                            std::string_view lock_shown) {
  if (r.pidns_ino != our_pidns_ino())
    return unknown(kLockHeld,
                   "not checked: the holder runs in another pid namespace, whose locks /proc/locks "
                   "does not show us");
  // netns-holder takes the lock before it writes anything and never deletes
  // it, and only root can remove it from a trusted directory: a record with no
  // lock beside it was not put there by netns-holder, and there is no lock to
  // compare (the other identity checks stand).
  if (!lock_st)
    return unknown(kLockHeld, "not checked: no " + quote(lock_shown) + " next to the record");
  if (!h.lock_pids) return unknown(kLockHeld, "not checked: " + h.locks_unread);
  const std::vector<uint64_t>& pids = *h.lock_pids;
  for (uint64_t pid : pids)
    if (pid == static_cast<uint64_t>(r.pid))
      return pass_with(kLockHeld,
                       [&] { return quote(lock_shown) + " held by pid " + std::to_string(pid); });
  std::string who = pids.empty() ? std::string("nobody") : "pid " + std::to_string(pids.front());
  return fail(kLockHeld, Errc::stale_holder,
              "lock " + quote(lock_shown) + " is held by " + who +
                  ", not by the record's holder pid " + std::to_string(r.pid) +
                  ": the holder that wrote the record is gone and pid " + std::to_string(r.pid) +
                  " is another process",
              kRestartHint);
}

HolderFacts read_holder(const HolderRecord& r, bool pid, const struct stat* lock_st,
                        HolderRef& holder) {
  HolderFacts h;
  if (pid && holder.pidfd && holder.pid == r.pid && holder.start_time == r.pid_start_time) {
    // A pidfd verified against this record before never names a newcomer.
    if (!pidfd_exited(holder.pidfd.get())) h.start_time = r.pid_start_time;
  } else if (pid) {
    UniqueFd fd;
    bool not_found = false;
    try {
      fd = make_pidfd(r.pid);
    } catch (const Error& e) {
      not_found = e.code() == Errc::not_found;
      // Otherwise no pidfd_open (ENOSYS) or no permission: the start time alone.
    }
    h.start_time = not_found ? std::nullopt : pid_start_time(r.pid);
    if (h.start_time == r.pid_start_time) {
      holder.pid = r.pid;
      holder.start_time = r.pid_start_time;
      holder.pidfd = std::move(fd);
    }
  }
  if (pid && h.start_time == r.pid_start_time) {
    // The namespace it is in now: through the pidfd, or else its /proc
    // entry, read and then confirmed by the start time again (if the pid was
    // reused in between, the stat may be of the newcomer).
    const int pidfd = holder.fd();
    if (pidfd >= 0) {
      int ns = ::ioctl(pidfd, PIDFD_GET_NET_NAMESPACE, 0);
      if (ns >= 0) {
        UniqueFd owned(ns);
        h.netns = ns_id_of_fd(owned.get(), "the holder's namespace (PIDFD_GET_NET_NAMESPACE)");
      } else {
        h.exited = errno == ESRCH;
      }
    }
    if (!h.netns && !h.exited) {
      std::string link = "/proc/" + std::to_string(r.pid) + "/ns/net";
      struct stat st {};
      if (::stat(link.c_str(), &st) != 0)
        h.netns_unread = "stat " + quote(link) + ": " + errno_text(errno);
      else if (pid_start_time(r.pid) != r.pid_start_time)
        h.exited = true;
      else
        h.netns = NsId{st.st_dev, st.st_ino};
    }
    if (pidfd >= 0) h.pidfs_ino = pidfs_inode(pidfd);
  }
  if (lock_st && r.pidns_ino == our_pidns_ino()) {
    try {
      h.lock_pids =
          flock_holders(read_file("/proc/locks", 16 << 20), lock_st->st_dev, lock_st->st_ino);
    } catch (const Error& e) {
      h.locks_unread = e.message();
    }
  }
  return h;
}

Finding holder_still_alive(const HolderRecord& r, const HolderRef& holder) {
  bool alive;
  if (holder.pidfd) {
    alive = !pidfd_exited(holder.pidfd.get());
  } else {
    alive = r.pidns_ino != our_pidns_ino() || pid_start_time(r.pid) == r.pid_start_time;
  }
  if (alive) return pass_with(kHolderAlive, [&] { return "pid " + std::to_string(r.pid); });
  return fail(
      kHolderAlive, Errc::stale_holder,
      "holder pid " + std::to_string(r.pid) +
          " exited after the namespace was validated; nothing was run: " + errno_text(ESRCH),
      "is the netns-holder pod restarting? retry once it is running again");
}

Finding socket_server(int sock, std::string_view shown, const Owners& owners,
                      const HolderRecord* record) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return fail(kSocketServer, Errc::system,
                "getsockopt(SO_PEERCRED) " + quote(shown) + ": " + errno_text(errno));
  if (!owners.trusted(cred.uid))
    return fail(
        kSocketServer, Errc::untrusted,
        "the server behind " + quote(shown) + " runs as uid " + std::to_string(cred.uid) +
            " (pid " + std::to_string(cred.pid) + "), not " + owners.text() +
            ": it is not a netns-holder this node trusts",
        "remove the socket and restart the holder pod" + owners.or_trust("the holder's uid"));
  // The pid is 0 when the server lives in a pid namespace we cannot see.
  if (record && cred.pid > 0 && record->pidns_ino == our_pidns_ino() && cred.pid != record->pid)
    return fail(kSocketServer, Errc::identity_mismatch,
                "the server behind " + quote(shown) + " is pid " + std::to_string(cred.pid) +
                    ", but the holder record next to it names pid " + std::to_string(record->pid),
                "another process serves the holder's socket: restart the holder pod");
  return pass_with(kSocketServer, [&] {
    return "uid " + std::to_string(cred.uid) + ", pid " + std::to_string(cred.pid);
  });
}

Finding socket_sender(const Sender& sender, std::string_view shown, const Owners& owners,
                      const HolderRecord* record) {
  if (!sender.known)
    return fail(kSocketSender, Errc::protocol,
                "the namespace from " + quote(shown) +
                    " came without its sender's credentials (SCM_CREDENTIALS)",
                "is the socket a netns-holder's?");
  const std::string who =
      "uid " + std::to_string(sender.uid) + ", pid " + std::to_string(sender.pid);
  if (!owners.trusted(sender.uid))
    return fail(
        kSocketSender, Errc::untrusted,
        "the process that sent the namespace over " + quote(shown) + " runs as " + who + ", not " +
            owners.text() + ": whoever listens, only a holder this node trusts may answer",
        "remove the socket and restart the holder pod" + owners.or_trust("the holder's uid"));
  if (!record) return pass_with(kSocketSender, [&] { return who + " (no record to compare)"; });
  std::optional<uint64_t> inode = sender.pidfd ? pidfs_inode(sender.pidfd.get()) : std::nullopt;
  if (inode && record->holder_pidfs_ino) {
    if (*inode == *record->holder_pidfs_ino)
      return pass_with(kSocketSender, [&] {
        return who + ", pidfs inode " + std::to_string(*inode) + " as in the record";
      });
    return fail(kSocketSender, Errc::identity_mismatch,
                "the process that sent the namespace over " + quote(shown) + " (" + who +
                    ", pidfs inode " + std::to_string(*inode) +
                    ") is not the record's holder (pidfs inode " +
                    std::to_string(*record->holder_pidfs_ino) + ")",
                "another process answers on the holder's socket: restart the holder pod");
  }
  if (record->pidns_ino != our_pidns_ino() || sender.pid <= 0)
    return unknown(kSocketSender,
                   who +
                       ": not compared with the record (the holder is in another pid namespace, "
                       "and no pidfs inode came with the message)");
  if (sender.pid == record->pid)
    return pass_with(kSocketSender, [&] { return who + ", the record's holder pid"; });
  return fail(kSocketSender, Errc::identity_mismatch,
              "the process that sent the namespace over " + quote(shown) + " is pid " +
                  std::to_string(sender.pid) + ", but the holder record next to it names pid " +
                  std::to_string(record->pid),
              "another process answers on the holder's socket: restart the holder pod");
}

Finding header_matches(const FdHeader& header, NsId received, std::string_view expected_id,
                       std::string_view shown) {
  if (!expected_id.empty() && header.cluster_id != expected_id)
    return fail(kHeader, Errc::identity_mismatch,
                "holder socket " + quote(shown) + " speaks for cluster " +
                    quote(header.cluster_id) + ", not " + quote(expected_id));
  if (header.netns != received)
    return fail(kHeader, Errc::identity_mismatch,
                "holder socket " + quote(shown) + " announced " + ns_text(header.netns) +
                    " but sent " + ns_text(received));
  return pass_with(
      kHeader, [&] { return "cluster " + quote(header.cluster_id) + ", " + ns_text(received); });
}

namespace {
constexpr const char* kIdentityStep = "check holder identity";
constexpr const char* kProvenanceStep = "check provenance";

// The judge's list: a finding with its step, false once a fatal failure
// ends the sequence.
struct Judged {
  std::vector<Finding> list;
  bool add(Finding f, const char* step) {
    if (!f.step) f.step = step;
    const bool go_on = f.ok || !f.fatal;
    list.push_back(std::move(f));
    return go_on;
  }
};

// A namespace file no record vouches for and not named as a holder's link: a
// failure in a holder directory, whatever `allowed_by` says; anywhere else a
// failure naming the opt-in unless `allowed_by` names what allowed it.
Finding record_required(const Gathered& g, bool holder_directory, std::string_view example,
                        std::string_view allowed_by) {
  if (holder_directory) {
    if (!g.record_shown.empty())
      return fail(kHolderDirectory, Errc::not_found,
                  "open " + quote(g.record_shown) + ": " + errno_text(ENOENT) + ": " +
                      quote(g.dir_shown) + " is a holder directory (it holds " + quote(example) +
                      "), and every namespace file in it, " + quote(g.path) +
                      " too, must come with its cluster's record",
                  "is the cluster's netns-holder pod running? name the holder's own <ID>.net.ns");
    return fail(
        kHolderDirectory, Errc::not_found,
        quote(g.dir_shown) + " is a holder directory (it holds " + quote(example) + "), and " +
            quote(g.path) +
            " is not a holder's <ID>.net.ns: without a cluster ID no record can vouch for it",
        "name the holder's own <ID>.net.ns, or the cluster (--cluster-id and ceph-csi's config)");
  }
  // Not a holder's file: a name under /run/netns, a /proc/PID/ns/net link,
  // anything else. Nothing vouches for it, so it is used only when asked for.
  if (!allowed_by.empty())
    return pass_with(kUnrecordedNetns, [&] {
      return quote(g.path) + ": no holder record vouches for it (" + quote(g.dir_shown) +
             " is not a holder directory); accepted with " + std::string(allowed_by);
    });
  std::string looked = g.record_shown.empty() ? std::string("it is not a holder's <ID>.net.ns")
                                              : "there is no " + quote(g.record_shown);
  return fail(
      kUnrecordedNetns, Errc::untrusted,
      "no holder record vouches for " + quote(g.path) + ": " + looked + ", and " +
          quote(g.dir_shown) +
          " is not a holder directory (no <ID>.holder.json or <ID>.lock in it), so nothing proves "
          "whose namespace it is or that its process is still the one meant",
      std::string(
          "name the holder's <ID>.net.ns (or its cluster), or, to use a namespace file no holder "
          "vouches for deliberately, opt in: ") +
          kUnrecordedOptIn);
}

// 3: the exemptions, each a named outcome.
Finding exemption(const Gathered& g, const Policy& p) {
  const bool required = p.identity == "require";
  if (g.holders_link) {
    // A holder's own link, next to which its record belongs.
    if (required)
      return fail(kRecordPresent, Errc::not_found,
                  "open " + quote(g.record_shown) + ": " + errno_text(ENOENT) +
                      ": a holder's link must come with its record",
                  "is the netns-holder pod running? a record-less (Rook-era) holder needs "
                  "netns-exec --identity if-present");
    Finding f = pass(kRecordPresent,
                     g.record_shown.empty()
                         ? "--identity " + std::string(p.identity)
                         : "no " + quote(g.record_shown) + " (" + std::string(p.identity) + ")");
    f.known = false;
    return f;
  }
  // Any other file: in a holder directory (never the kernel's /proc/PID/ns)
  // it needs its cluster's record; elsewhere an opt-in, or the kernel's word
  // that it is the caller's own namespace (--allow-own-netns: the holder's
  // own guard, `--netns /proc/self/ns/net`).
  std::string example;
  const bool holder_directory =
      required && !g.procfs && g.dirfd >= 0 && holds_holder_files(g.dirfd, &example);
  const char* allowed_by = p.allow_unrecorded ? "allow_unrecorded_netns"
                           : p.allow_own_netns && g.own_namespace
                               ? "allow_own_netns (it is this process's own namespace)"
                               : "";
  return record_required(g, holder_directory, example, allowed_by);
}

// 4: the holder, from its facts.
void add_holder(const Gathered& g, const Policy& p, Judged& out) {
  const HolderRecord& r = *g.record;
  const HolderFacts& h = *g.holder;
  if (pid_names_holder(g, p) &&
      (!out.add(holder_alive(r, h, g.record_shown), kIdentityStep) ||
       !out.add(identity_matches(r, g.opened, h, g.record_shown), kIdentityStep) ||
       !out.add(holder_is_recorded_process(r, h, g.record_shown), kIdentityStep)))
    return;
  // What pid, tick and inode cannot tell apart: a reused inode.
  if (g.opened_ns &&
      !out.add(namespace_cookie_matches(r, *g.opened_ns, g.record_shown), kIdentityStep))
    return;
  // The lock, held for the holder's whole life: where the pid cannot be
  // compared, the proof that the holder lives.
  if (g.lock_st && !S_ISREG(g.lock_st->st_mode) &&
      !out.add(fail(kLockOwner, Errc::untrusted,
                    quote(g.lock_shown) + " is " + file_type_name(g.lock_st->st_mode) +
                        ", not the holder's lock file",
                    "remove it and restart the holder pod"),
               kProvenanceStep))
    return;
  if (g.lock_st &&
      !out.add(file_owner(kLockOwner, *g.lock_st, "lock", g.lock_shown, p.owners), kProvenanceStep))
    return;
  out.add(lock_held_by_holder(r, h, g.lock_st, g.lock_shown), kIdentityStep);
}
}  // namespace

bool pid_names_holder(const Gathered& g, const Policy& p) {
  return g.record && (p.pid == Policy::Pid::link ||
                      (p.pid == Policy::Pid::probe && g.record->pidns_ino == our_pidns_ino()));
}

std::vector<Finding> judge(const Gathered& g, const Policy& p) {
  Judged out;
  // 1: the record, and where it comes from (cheapest and most explanatory
  // first: after a reboot every inode differs too, and from another pid
  // namespace the record's pid names another process for us).
  if (const HolderRecord* r = g.record) {
    const std::string_view shown = g.record_shown;
    if (!out.add(pass_with(kRecordPresent, [&] { return quote(shown); }), kIdentityStep) ||
        !out.add(file_owner(kRecordOwner, *g.record_st, "holder record", shown, p.owners),
                 kProvenanceStep) ||
        !out.add(record_for_cluster(*r, g.cluster_id, shown), kIdentityStep) ||
        !out.add(record_this_boot(*r, shown), kIdentityStep) ||
        (p.pid == Policy::Pid::link &&
         !out.add(record_this_pid_namespace(*r, shown), kIdentityStep)))
      return std::move(out.list);
  }
  // 2: the file, its descriptor and its directory, as the caller found them.
  for (const Finding& f : g.file)
    if (!out.add(f, nullptr)) return std::move(out.list);
  if (g.record) {
    if (g.holder) add_holder(g, p, out);
  } else if (g.unreadable) {
    out.add(fail(kRecordPresent, *g.unreadable), kIdentityStep);
  } else {
    out.add(exemption(g, p), kIdentityStep);
  }
  return std::move(out.list);
}

std::vector<Finding> judge_holder(Gathered& g, const Policy& p, HolderRef& holder) {
  std::vector<Finding> first = judge(g, p);
  // A fatal failure is the list's last finding: nothing after it is looked at.
  if (!g.record || (!first.empty() && !first.back().ok && first.back().fatal)) return first;
  // One pidfd for all three: opened (or, from the cache, polled) once, then
  // asked for the holder's namespace and its pidfs inode.
  const HolderFacts h = read_holder(*g.record, pid_names_holder(g, p), g.lock_st, holder);
  g.holder = &h;
  std::vector<Finding> out = judge(g, p);
  g.holder = nullptr;
  return out;
}

}  // namespace netns::trust
