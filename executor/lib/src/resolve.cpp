// Source -> one validated namespace descriptor. Gather, then judge: the steps
// below open what the source names and collect what they find as findings,
// in the order the rules apply (netns/trust.hpp's named checks, ordered by
// trust::judge); then one judgement over the list, the same for every
// interface: the first failure is the refusal (resolve() throws it, doctor
// and inspect show it with every finding before it). A fatal failure ends the
// gathering: what it leaves cannot be checked, or must not be touched. Every
// refusal names the cluster and/or path, the step that failed, the errno text
// where there is one, and what to check.
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <tuple>

#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/fd_passing.hpp"
#include "netns/trust.hpp"
#include "netns/trusted_path.hpp"
#include "netns/unix_address.hpp"
#include "netns_exec/ceph_csi_config.hpp"
#include "netns_exec/source.hpp"
#include "record_cache.hpp"
#include "wait_path.hpp"

namespace netns::exec {

namespace {

using detail::split_path;
using detail::wait_for_path;

// A holder that accepted the connection answers at once; this bounds one that
// does not (it must never hang the plugin).
constexpr std::chrono::seconds kSocketReplyTimeout{5};

using detail::CacheUse;  // resolve() only: doctor takes nothing from the cache

// The findings of one resolve, in order. A failure is kept with the step it
// belongs to; after a fatal one nothing more is added (the steps that would
// open or receive something next ask stopped() first).
class Findings {
 public:
  explicit Findings(CacheUse* cache = nullptr) : cache_(cache) { list_.reserve(24); }

  void add(trust::Finding f, const char* step, bool fatal = true) {
    if (!f.step) f.step = step;
    f.fatal = fatal;
    push(std::move(f));
  }
  // A finding as it comes, with its own step and fatality (the judge's).
  void push(trust::Finding f) {
    if (stopped_) return;
    if (!f.ok) {
      failed_ = true;
      stopped_ = f.fatal;
    }
    list_.push_back(std::move(f));
  }
  // A finding that says a check does not apply here (doctor shows it).
  void note(const char* check, const std::string& why) {
    trust::Finding f = trust::pass_with(check, [&] { return why; });
    f.known = false;
    push(std::move(f));
  }
  [[nodiscard]] bool stopped() const { return stopped_; }
  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] CacheUse* cache() const { return cache_; }
  std::vector<trust::Finding> take() { return std::move(list_); }
  [[nodiscard]] const std::vector<trust::Finding>& list() const { return list_; }

 private:
  std::vector<trust::Finding> list_;
  CacheUse* cache_;
  bool failed_ = false;
  bool stopped_ = false;
};

template <typename F>
auto in_step(const char* step, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (Error& e) {
    e.context(step);
    throw;
  }
}

std::string waited_text(std::chrono::nanoseconds wait) {
  return wait.count() > 0 ? " (after waiting " + format_duration(wait) + ")" : std::string();
}

// "--trust-uid": the CLI's name for trust_uids (source_options.cpp), which
// the library's own callers set as ResolveOptions::trust_uids.
trust::Owners owners_of(const ResolveOptions& options) {
  return trust::Owners{options.trust_uids, "--trust-uid"};
}

// The kernel's own directories (/proc/PID/ns) are not a holder directory.
bool on_procfs(int fd) {
  struct statfs fs {};
  return ::fstatfs(fd, &fs) == 0 && static_cast<unsigned long>(fs.f_type) == PROC_SUPER_MAGIC;
}

// The file is missing: say how (directory, dangling link, plain missing).
[[noreturn]] void throw_missing(const std::string& path, std::chrono::nanoseconds wait) {
  auto [dir, name] = split_path(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    Error e = Error::sys("open", dir, ENOENT, {}, Errc::not_found);
    e.context("directory of " + quote(path) + " does not exist" + waited_text(wait));
    throw e;
  }
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char target[4096];
    ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    std::string to = n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string("?");
    Error e = Error::sys("open", path, ENOENT, {}, Errc::stale_holder);
    e.context("dangling symlink to " + quote(to) + ": the holder process it names is gone" +
              waited_text(wait));
    throw e;
  }
  Error e = Error::sys("open", path, ENOENT, {}, Errc::not_found);
  if (wait.count() > 0) e.context("not published" + waited_text(wait));
  throw e;
}

// One connect attempt through `address`. False, with `last_err` set, for what
// is worth waiting for: not there yet, or left behind by a holder that is gone
// (a restarted holder replaces it).
bool try_connect(UniqueFd& sock, const std::string& address, const std::string& shown,
                 int& last_err) {
  UnixAddress addr = unix_address(address, shown);
  sock = make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
  request_sender_identity(sock.get());
  last_err = connect_unix(sock.get(), addr);
  if (last_err == 0) return true;
  sock.reset();
  if (last_err == ENOENT || last_err == ECONNREFUSED) return false;
  throw Error::sys("connect", shown, last_err);
}

[[noreturn]] void throw_not_connected(const std::string& path, int last_err,
                                      std::chrono::nanoseconds wait) {
  Error e = Error::sys("connect", path, last_err, {}, Errc::not_found);
  if (last_err == ECONNREFUSED)
    e.context("no holder is listening behind the socket" + waited_text(wait));
  else if (wait.count() > 0)
    e.context("not published" + waited_text(wait));
  e.context("connect to holder socket");
  throw e;
}

// What was opened at a path: the directory, and either the namespace file or a
// connected holder socket, with the entry's own lstat (the link, or the file).
// With the directory's chain and whether it is the kernel's, this is the site:
// where the file lives, read before anything is judged (read_site).
struct Opened {
  UniqueFd dirfd;
  UniqueFd fd;    // the namespace file (O_RDONLY, as setns needs)
  UniqueFd sock;  // instead of fd: a connected holder socket
  int sock_err = 0;
  bool found = false;
  struct stat entry {};  // lstat of the name in dirfd
  // Every directory and symlink the path went through (a failure: nothing
  // else was opened).
  trust::Finding hops = trust::pass(trust::kEveryHop, "");
  bool procfs = false;          // dirfd is the kernel's (/proc/PID/ns): no chain to judge
  trust::DirectoryChain chain;  // dirfd and every directory above it
};

// The rest of the site, once the file is there: the kernel's directories
// (/proc/PID/ns) are not a holder directory, and any other one's chain is
// read, to be judged in its place among the file's checks.
void read_site(Opened& o) {
  if (!o.found || !o.dirfd) return;
  o.procfs = on_procfs(o.dirfd.get());
  if (!o.procfs) o.chain = trust::read_directory_chain(o.dirfd.get());
}

Opened open_path(const std::string& path, const ResolveOptions& options, bool socket_only) {
  if (path.empty() || path.back() == '/')
    throw Error(Errc::invalid_argument, "namespace file path " + quote(path) + " names no file");
  Opened o;
  // The path is walked from "/" one component at a time (trusted_path.hpp):
  // every directory and symlink on the way, the link's own target path
  // included, is judged as it is opened, and the directory that holds the
  // link is kept, so the link, the record and the socket are all read
  // relative to it even if the path is renamed meanwhile.
  o.found = wait_for_path(path, options.wait_holder, [&] {
    o.sock_err = 0;  // what the last attempt found is what is reported
    trust::WalkedPath walked;
    o.hops = trust::walk_path(path, owners_of(options), {}, &walked);
    if (!o.hops.ok) return true;  // refused: nothing to wait for
    o.dirfd = std::move(walked.dir);
    if (!walked.found) return false;
    // O_PATH: the walk opened everything without side effects (a FIFO or a
    // terminal cannot block or adopt us, a socket does not fail with ENXIO),
    // and what it opened is then looked at, not the path again. The entry's
    // own lstat is the link's owner; the directory's provenance check makes
    // sure nobody untrusted can swap the entry meanwhile.
    o.entry = walked.entry;
    const struct stat& st = walked.target_st;
    if (S_ISSOCK(st.st_mode)) {
      // Socket mode through a path: connect through the O_PATH descriptor, so
      // to the socket just checked, and with no 108-byte sun_path limit.
      return try_connect(o.sock, fd_path(walked.target.get()), path, o.sock_err);
    }
    if (socket_only)
      throw Error(Errc::invalid_argument,
                  quote(path) + " is " + file_type_name(st.st_mode) + ", not a socket",
                  "--socket takes a holder's <ID>.net.sock");
    // O_RDONLY as setns needs; O_NONBLOCK|O_NOCTTY as above, for whatever
    // the nsfs check is about to reject.
    try {
      o.fd = open_fd(fd_path(walked.target.get()), O_RDONLY | O_NONBLOCK | O_NOCTTY);
    } catch (Error& e) {
      throw Error::sys("open", path, e.sys_errno());
    }
    return true;
  });
  return o;
}

// resolve() only (doctor looks at everything afresh): a link this process
// has verified before, unchanged, with the same record file and a holder
// that has not exited, gives back the descriptor it led to then instead of
// being followed into /proc again (record_cache.hpp). Everything else is
// checked as on the full path. Nullopt for anything else; the caller then
// opens the path as usual.
struct Verified {
  Opened opened;
  struct stat record {};         // the record file's fstatat, for load_record
  trust::NamespaceFacts target;  // what the kernel said about the descriptor then
};
std::optional<Verified> open_verified(const std::string& path, const std::string& name,
                                      const std::string& record_name, const ResolveOptions& options,
                                      CacheUse& cache) {
  // Nothing here may throw. Whatever fails is the full path's to report,
  // with its own steps and words. The way to the directory is walked as on
  // the full path (the link's target, a namespace already verified, is not
  // followed again).
  UniqueFd dirfd;
  try {
    trust::WalkedPath walked;
    trust::WalkOptions only_to_the_link;
    only_to_the_link.follow_entry = false;
    if (!trust::walk_path(path, owners_of(options), only_to_the_link, &walked).ok || !walked.found)
      return std::nullopt;
    dirfd = std::move(walked.dir);
  } catch (const Error&) {
    return std::nullopt;
  }
  Verified v;
  if (::fstatat(dirfd.get(), name.c_str(), &v.opened.entry, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISLNK(v.opened.entry.st_mode) ||
      ::fstatat(dirfd.get(), record_name.c_str(), &v.record, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(v.record.st_mode))
    return std::nullopt;
  std::optional<detail::VerifiedNamespace> ns = detail::cached_namespace(v.opened.entry, v.record);
  if (!ns) return std::nullopt;
  cache.used = true;
  cache.record = v.record;
  v.opened.dirfd = std::move(dirfd);
  v.opened.fd = std::move(ns->fd);
  v.opened.found = true;
  v.target = std::move(ns->facts);
  return v;
}

// The namespace descriptor, after its type: the same checks whatever it came
// from. None ends the sequence: doctor shows them all.
void check_descriptor(const trust::NamespaceFacts& ns, const std::string& shown,
                      const ResolveOptions& options, Findings& findings) {
  findings.add(trust::initial_user_namespace(ns, shown, options.allow_userns),
               "check namespace owner", false);
  const NsId own = current_netns_id();
  findings.add(trust::not_own_namespace(ns.id, own, shown, options.allow_own_netns),
               "check not own namespace", false);
  // Our own namespace refused above says all; the host check would repeat it.
  if (ns.id != own || options.allow_own_netns)
    findings.add(trust::not_host_namespace(ns.id, own, shown, options.allow_host_netns),
                 "check not host namespace", false);
}

// The directory the file came from, unless it is the kernel's (/proc/PID/ns).
void check_directory(const Opened& o, const std::string& dir, const ResolveOptions& options,
                     Findings& findings) {
  if (o.procfs) {
    findings.note(trust::kDirTrusted, quote(dir) + " is the kernel's (procfs)");
    return;
  }
  findings.add(trust::directory_chain(o.chain, o.dirfd.get(), dir, owners_of(options)),
               "check provenance", false);
}

struct LoadedRecord {
  std::optional<HolderRecord> record;  // nullopt: absent (or unreadable)
  struct stat st {};
  std::optional<Error> unreadable;  // there, but not readable or not a record
};

// Reads the record (an unchanged record file, same identity by a fresh
// fstatat, from the cache: record_cache.hpp). A record that cannot be read
// is kept as its error, which the judge reports after the file's own
// checks (a missing link is the news before it).
LoadedRecord load_record(int dirfd, const std::string& name, const std::string& shown,
                         CacheUse* cache, const struct stat* fresh = nullptr) {
  LoadedRecord out;
  struct stat st {};
  if (fresh != nullptr) st = *fresh;
  if (cache &&
      (fresh != nullptr || ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) &&
      S_ISREG(st.st_mode)) {
    if (auto cached = detail::cached_record(st)) {
      out.record = std::move(cached);
      out.st = st;
      return out;
    }
  }
  try {
    out.record = in_step("check holder identity",
                         [&] { return read_record_at(dirfd, name, shown, &out.st); });
  } catch (const Error& e) {
    out.unreadable = e;
  }
  if (out.record && cache) detail::cache_record(out.st, *out.record);
  return out;
}

// The record's holder still holds its <ID>.lock (lstat: the file's owner
// and inode are all that is looked at; nothing is opened or locked). The
// lstat is taken while the directory is open and judged by trust::judge,
// so that the directory can be closed before the holder's pidfd and what it
// gives are open: the nsenter form must need no more free descriptors than
// nsenter (three, under `ulimit -Hn 6`).
struct LockFile {
  std::string shown;
  bool present = false;
  struct stat st {};
};
LockFile stat_lock(int dirfd, const std::string& dir, const HolderRecord& record) {
  LockFile lock;
  const std::string name = holder_file_names(record.cluster_id).lock;
  lock.shown = join_path(dir, name);
  lock.present = ::fstatat(dirfd, name.c_str(), &lock.st, AT_SYMLINK_NOFOLLOW) == 0;
  return lock;
}
void set_lock(trust::Gathered& g, const LockFile& lock) {
  g.lock_st = lock.present ? &lock.st : nullptr;
  g.lock_shown = lock.shown;
}

// The judge over what was gathered (the holder read only once the rest
// passed); a step of its own that fails (a system call on the holder)
// counts towards the check it was making.
void judge_gathered(trust::Gathered& g, const trust::Policy& p, HolderRef& holder,
                    Findings& findings) {
  try {
    for (trust::Finding& f : trust::judge_holder(g, p, holder)) findings.push(std::move(f));
  } catch (const Error& e) {
    findings.push(trust::fail(g.record ? trust::kHolderAlive : trust::kHolderDirectory, e));
  }
}

// Receives the namespace over a connected holder socket and validates it like
// any descriptor, plus: the server is trusted, the header announces what was
// sent, for the cluster each non-empty entry of `expected_ids` names.
// `target` receives what the kernel says about the descriptor.
ResolvedNamespace receive_namespace(UniqueFd& sock, const std::string& path,
                                    std::initializer_list<std::string> expected_ids,
                                    const HolderRecord* record, const ResolveOptions& options,
                                    Findings& findings, trust::NamespaceFacts& target) {
  findings.add(trust::socket_server(sock.get(), path, owners_of(options), record),
               "check holder socket");
  if (findings.stopped()) return {};  // nothing is taken from an untrusted server
  ReceivedFd received;
  try {
    received = in_step("receive namespace from holder", [&] {
      pollfd pfd{sock.get(), POLLIN, 0};
      int n;
      do {
        n = ::poll(&pfd, 1,
                   static_cast<int>(std::chrono::milliseconds(kSocketReplyTimeout).count()));
      } while (n < 0 && errno == EINTR);
      if (n < 0) throw Error::sys("poll", path, errno);
      if (n == 0)
        throw Error::sys("recvmsg", path, ETIMEDOUT, "is the netns-holder behind this socket hung?",
                         Errc::timeout);
      ReceivedFd got = receive_fd(sock.get(), path);
      sock.reset();  // the holder's one message has come
      return got;
    });
  } catch (const Error& e) {
    findings.push(trust::fail(trust::kHeader, e));
    return {};
  }

  findings.add(trust::socket_sender(received.sender, path, owners_of(options), record),
               "check holder socket");
  // The sender's pidfd has served (socket_sender is its only use), and the
  // connection has nothing more to say: neither is held through the
  // descriptor's checks, which then need no more free descriptors than a link's.
  received.sender.pidfd.reset();
  ResolvedNamespace out;
  out.path = path;
  out.cluster_id = received.header.cluster_id;
  target = trust::read_namespace(received.fd.get(), path);
  out.id = target.id;
  findings.add(trust::network_namespace(target), "check namespace type");
  // The holder itself just handed us the fd over a live connection; what it
  // says must still match what it sent.
  std::vector<std::string> expected;
  for (const std::string& id : expected_ids)
    if (options.identity != IdentityPolicy::off && !id.empty() &&
        std::find(expected.begin(), expected.end(), id) == expected.end())
      expected.push_back(id);
  if (expected.empty()) expected.emplace_back();
  for (const std::string& id : expected)
    findings.add(trust::header_matches(received.header, out.id, id, path), "check holder identity");
  if (findings.stopped()) return {};
  check_descriptor(target, path, options, findings);
  out.fd = std::move(received.fd);
  return out;
}

// What the file's name says: which record speaks for it (the one named
// after the file, else the one for the cluster we were asked about) and the
// names a refusal shows.
struct Names {
  std::string path, dir, name;
  std::string cluster_id;   // the cluster we were asked about ("": none)
  std::string link_id;      // the cluster the file's own name gives ("": not a holder's name)
  std::string expected_id;  // the cluster the record must be for
  std::string record_name, record_shown;  // empty: no record is read
};
Names names_of(const std::string& path, const std::string& cluster_id, const Opened& o,
               bool is_socket, const ResolveOptions& options) {
  Names n;
  n.path = path;
  std::tie(n.dir, n.name) = split_path(path);
  n.cluster_id = cluster_id;
  n.link_id = cluster_id_from_file_name(n.name, is_socket ? kSocketSuffix : kLinkSuffix);
  const std::string record_id = n.link_id.empty() ? cluster_id : n.link_id;
  n.expected_id = cluster_id.empty() ? record_id : cluster_id;
  if (options.identity != IdentityPolicy::off && o.dirfd && !record_id.empty()) {
    n.record_name = holder_file_names(record_id).record;
    n.record_shown = join_path(n.dir, n.record_name);
  }
  return n;
}

trust::Gathered gathered(const Names& n) {
  trust::Gathered g;
  g.path = n.path;
  g.dir_shown = n.dir;
  g.record_shown = n.record_shown;
  g.cluster_id = n.expected_id;
  g.holders_link = !n.link_id.empty();
  return g;
}
trust::Policy policy_of(const ResolveOptions& options, trust::Policy::Pid pid) {
  trust::Policy p;
  p.owners = owners_of(options);
  p.pid = pid;
  p.identity = identity_policy_name(options.identity);
  p.allow_unrecorded = options.allow_unrecorded_netns;
  p.allow_own_netns = options.allow_own_netns;
  return p;
}

// A holder's socket: its directory and owner, then the record (if any), then
// what the holder sends, judged after the record's origin.
ResolvedNamespace from_socket(Opened& o, const Names& n, const ResolveOptions& options,
                              Findings& findings) {
  if (!o.found) throw_not_connected(n.path, o.sock_err, options.wait_holder);
  check_directory(o, n.dir, options, findings);
  findings.add(
      trust::file_owner(trust::kSocketOwner, o.entry, "holder socket", n.path, owners_of(options)),
      "check provenance", false);
  LoadedRecord loaded;
  if (!n.record_name.empty())
    loaded = load_record(o.dirfd.get(), n.record_name, n.record_shown, nullptr);
  if (loaded.unreadable) {
    findings.push(trust::fail(trust::kRecordPresent, *loaded.unreadable));
    return {};
  }
  // Everything read from the directory is read by now (the lock's lstat
  // last): it is closed before the namespace and the sender's pidfd
  // arrive, as for a link.
  LockFile lock;
  if (loaded.record) lock = stat_lock(o.dirfd.get(), n.dir, *loaded.record);
  o.dirfd.reset();
  trust::NamespaceFacts target;
  // Without a record the holder's socket and its sender are all there is.
  if (!loaded.record)
    return receive_namespace(o.sock, n.path, {n.cluster_id, n.link_id}, nullptr, options, findings,
                             target);
  // With one, what the holder sent is the file the judge judges
  // after the record's origin.
  Findings received;
  ResolvedNamespace got = receive_namespace(o.sock, n.path, {n.cluster_id, n.link_id},
                                            &*loaded.record, options, received, target);
  trust::Gathered g = gathered(n);
  g.record = &*loaded.record;
  g.record_st = &loaded.st;
  set_lock(g, lock);
  g.opened = got.id;
  if (got.fd) g.opened_ns = &target;
  g.file = received.take();
  HolderRef holder;
  judge_gathered(g, policy_of(options, trust::Policy::Pid::socket), holder, findings);
  return got;
}

// A namespace file (a holder's link, /proc/PID/ns/net, a bind mount): the
// file's own checks, then the judge, which judges them after the
// record's origin; on success, what the cache may keep.
ResolvedNamespace from_file(Opened& o, std::optional<Verified>& verified, const Names& n,
                            const ResolveOptions& options, Findings& findings) {
  if (o.found)
    findings.add(trust::pass_with(trust::kFileExists, [&] { return quote(n.path); }),
                 "open namespace file");
  LoadedRecord loaded;
  if (!n.record_name.empty())
    loaded = load_record(o.dirfd.get(), n.record_name, n.record_shown, findings.cache(),
                         verified ? &verified->record : nullptr);

  ResolvedNamespace out;
  out.path = n.path;
  out.cluster_id = n.expected_id;
  trust::Gathered g = gathered(n);
  if (loaded.record) {
    g.record = &*loaded.record;
    g.record_st = &loaded.st;
    // The holder's pidfd verified against this very record file before
    // (record_cache.hpp): the judge polls it instead of opening one.
    if (findings.cache()) out.holder = detail::cached_holder(loaded.st);
  }
  g.unreadable = loaded.unreadable ? &*loaded.unreadable : nullptr;

  // The file itself: what it is and where it lives, judged after the
  // record's origin (Gathered::file).
  Findings file;
  bool procfs = false;
  trust::NamespaceFacts target;  // what the descriptor is
  if (!o.found) {
    try {
      in_step("open namespace file", [&] { throw_missing(n.path, options.wait_holder); });
    } catch (const Error& e) {
      file.push(trust::fail(trust::kFileExists, e));
    }
  } else {
    target = verified ? std::move(verified->target) : trust::read_namespace(o.fd.get(), n.path);
    out.id = target.id;
    file.add(trust::network_namespace(target), "check namespace type");
    if (!file.stopped()) {
      check_descriptor(target, n.path, options, file);
      procfs = o.procfs;
      check_directory(o, n.dir, options, file);
      // A /proc/PID/ns/* link belongs to its process's owner: the kernel's, not a holder's file.
      if (S_ISLNK(o.entry.st_mode) && !procfs)
        file.add(trust::file_owner(trust::kLinkOwner, o.entry, "link", n.path, owners_of(options)),
                 "check provenance", false);
    }
  }
  g.opened = out.id;
  if (o.fd) g.opened_ns = &target;
  g.procfs = procfs;
  g.dirfd = o.dirfd.get();
  g.own_namespace = out.id == current_netns_id();
  LockFile lock;
  if (g.record) {
    // Everything read from the directory is read by now (the lock's lstat
    // last): it is closed before the holder's pidfd is opened. Without a
    // record the exemption looks at the directory (a holder directory?).
    lock = stat_lock(o.dirfd.get(), n.dir, *g.record);
    set_lock(g, lock);
    o.dirfd.reset();
    g.dirfd = -1;
  }
  g.file = file.take();
  const bool had_pidfd = static_cast<bool>(out.holder.pidfd);
  judge_gathered(g, policy_of(options, trust::Policy::Pid::link), out.holder, findings);
  if (findings.stopped()) return out;
  if (loaded.record) {
    // Every check passed: remember the holder's pidfd, and where this link
    // led (resolve() only, and only a namespace owned by the initial user
    // namespace, whatever this call allowed: without --allow-userns that
    // check passed above). A failure is judged: nothing is remembered.
    const bool passed = !findings.failed();
    if (passed && findings.cache() && !had_pidfd && out.holder.pidfd)
      detail::cache_pidfd(loaded.st, out.holder.pidfd.get());
    if (passed && findings.cache() && !verified && S_ISLNK(o.entry.st_mode) && out.holder.pidfd &&
        (!options.allow_userns || trust::initial_user_namespace(target, n.path, false).ok))
      detail::cache_namespace(o.entry, loaded.st, o.fd.get(), target);
    out.record = std::move(*loaded.record);
  }
  // Our own namespace, where it is allowed only with a record's word for it.
  if (options.allow_own_netns && options.own_netns_needs_record && !out.record &&
      out.id == current_netns_id())
    findings.add(trust::not_own_namespace(out.id, out.id, n.path, false),
                 "check not own namespace");
  out.fd = std::move(o.fd);
  return out;
}

// Opens what the path names (from the cache where it may: the cache's one
// seam, checked below exactly as a freshly opened file), then checks it as a
// socket or as a namespace file.
ResolvedNamespace open_namespace_file(const std::string& path, const std::string& cluster_id,
                                      const ResolveOptions& options, bool socket_only,
                                      Findings& findings) {
  const std::string name = split_path(path).second;
  const std::string link_id = socket_only ? "" : cluster_id_from_file_name(name, kLinkSuffix);
  std::optional<Verified> verified;
  if (findings.cache() && !link_id.empty() && options.identity != IdentityPolicy::off)
    verified =
        open_verified(path, name, holder_file_names(link_id).record, options, *findings.cache());
  Opened o = verified ? std::move(verified->opened)
                      : in_step(socket_only ? "connect to holder socket" : "open namespace file",
                                [&] { return open_path(path, options, socket_only); });
  // Missing: the missing file is the news (a pass on the way to nothing says nothing).
  if (!o.hops.ok || o.found) findings.add(std::move(o.hops), "check provenance");
  if (findings.stopped()) return {};
  read_site(o);
  const bool is_socket = o.sock || o.sock_err != 0;
  if (socket_only && !o.found)
    throw_not_connected(path, o.sock_err != 0 ? o.sock_err : ENOENT, options.wait_holder);
  const Names n = names_of(path, cluster_id, o, is_socket, options);
  return is_socket ? from_socket(o, n, options, findings)
                   : from_file(o, verified, n, options, findings);
}

std::string default_hint(const std::string& cluster_id, const std::string& path) {
  if (!cluster_id.empty())
    return "is the netns-holder pod for cluster " + quote(cluster_id) + " running on this node?";
  return "is the netns-holder pod that publishes " + quote(path) + " running on this node?";
}

// Gathers what `source` leads to; `cluster_id` and `path` become what it
// named (a file name's cluster, the config's path) for the refusal's words.
ResolvedNamespace gather(const Source& source, const ResolveOptions& options, Findings& findings,
                         std::string& cluster_id, std::string& path) {
  switch (source.kind) {
    case Source::Kind::path: {
      const std::string name = split_path(path).second;
      cluster_id = cluster_id_from_file_name(name, kLinkSuffix);
      if (cluster_id.empty()) cluster_id = cluster_id_from_file_name(name, kSocketSuffix);
      return open_namespace_file(path, cluster_id, options, false, findings);
    }
    case Source::Kind::socket:
      cluster_id = cluster_id_from_file_name(split_path(path).second, kSocketSuffix);
      return open_namespace_file(path, {}, options, true, findings);
    case Source::Kind::cluster: {
      path = in_step("look up cluster in ceph-csi config", [&] {
        return lookup_netns_path(source.config, source.cluster_id, source.config_kind);
      });
      if (path.empty()) {
        ResolvedNamespace own;
        own.own_namespace = true;
        own.cluster_id = source.cluster_id;
        own.id = current_netns_id();
        own.warning = no_holder_path_warning(source.config, source.cluster_id, source.config_kind);
        return own;
      }
      return open_namespace_file(path, source.cluster_id, options, false, findings);
    }
  }
  throw Error(Errc::invalid_argument, "unknown namespace source kind");
}

// What resolve() and inspect_source() both return: every finding, and the
// judgement: the first failure as the refusal, with the cluster and what to
// check. A step that is not a check (opening, looking up) and fails ends the
// list; it counts towards "file exists".
struct Judged {
  ResolvedNamespace ns;
  std::vector<trust::Finding> findings;
  std::optional<Error> refusal;
};

Judged judge(const Source& source, const ResolveOptions& options, CacheUse* cache) {
  std::string cluster_id = source.cluster_id;
  std::string path = source.path;
  auto decorate = [&](Error& e) {
    e.default_hint(default_hint(cluster_id, path));
    if (source.kind == Source::Kind::cluster) {
      e.context("cluster " + quote(source.cluster_id));
    } else if (!cluster_id.empty()) {
      e.context("cluster " + quote(cluster_id));
    }
  };
  Findings findings(cache);
  Judged out;
  std::optional<Error> thrown;
  try {
    out.ns = gather(source, options, findings, cluster_id, path);
  } catch (Error& e) {
    decorate(e);
    thrown = e;
  }
  if (const trust::Finding* f = trust::first_failure(findings.list())) {
    Error e = f->refusal();
    decorate(e);
    out.refusal = std::move(e);
  } else if (thrown) {
    out.refusal = thrown;
  }
  out.findings = findings.take();
  if (thrown) out.findings.push_back(trust::fail(trust::kFileExists, *thrown));
  if (out.refusal) out.ns = ResolvedNamespace{};
  return out;
}

}  // namespace

// resolve(), taking from the cache what options.remember allows. What the
// cache gave is checked like everything else, so a refusal is worded as
// without it; the refused entry is forgotten, so that a namespace the next
// call would not accept is not kept alive here.
ResolvedNamespace resolve(const Source& source, const ResolveOptions& options) {
  trust::QuietPasses quiet;  // only a failure is ever shown
  CacheUse cache;
  Judged judged = judge(source, options, options.remember ? &cache : nullptr);
  if (judged.refusal) {
    if (cache.used) detail::forget_namespace(cache.record);
    throw *judged.refusal;
  }
  return std::move(judged.ns);
}

Inspection inspect_source(const Source& source, const ResolveOptions& options) {
  Judged judged = judge(source, options, nullptr);
  Inspection out;
  out.findings = std::move(judged.findings);
  out.ns = std::move(judged.ns);
  out.error = std::move(judged.refusal);
  return out;
}

void recheck_holder(const ResolvedNamespace& ns) {
  if (ns.own_namespace || !ns.record) return;
  trust::QuietPasses quiet;
  trust::Finding f = trust::holder_still_alive(*ns.record, ns.holder);
  if (f.ok) return;
  Error e = f.error();
  e.context("run");
  if (!ns.cluster_id.empty()) e.context("cluster " + quote(ns.cluster_id));
  throw e;
}

}  // namespace netns::exec
