#pragma once
// The trust policy. Every rule that decides whether a namespace descriptor, a
// holder file or a holder socket may be trusted is here, once, as a small
// named check on what was already opened (a descriptor or its fstat, never a
// path looked up again). What a descriptor and a holder are is read once into
// plain facts (NamespaceFacts, HolderFacts), which the checks judge without
// asking the kernel again. A check returns a Finding instead of throwing. The
// callers gather what they opened into one Gathered, and judge() applies
// these checks to it in one order (below): the first
// failure is the refusal of netns-exec's resolve(); `netns-exec doctor` prints
// every finding up to the first fatal one; `netns-holder check` and the
// holder's own start-up use the same ones (this is in common/ because the
// static holder links it).
#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns/api.h"
#include "netns/error.hpp"
#include "netns/fd_passing.hpp"
#include "netns/holder_record.hpp"
#include "netns/holder_ref.hpp"
#include "netns/nsfd.hpp"
#include "netns/unique_fd.hpp"

namespace netns::trust {

struct NETNS_EXEC_API Finding {
  const char* check = "";  // the check's name (doctor's line, see names below)
  bool ok = true;
  bool known = true;  // false: the fact cannot be known here (still ok)
  Errc code = Errc::system;
  std::string detail;  // what was found, or why it failed
  std::string hint;    // what to fix (failed findings)
  // The step a refusal names ("check provenance"); nullptr: none (the
  // cause, or the caller, says where).
  const char* step = nullptr;
  // false: a failure that leaves the rest worth checking (doctor goes on
  // past it; a refusal is still the first failure, fatal or not).
  bool fatal = true;
  // A failure that came as an Error while the facts were gathered (opening,
  // reading, receiving), kept whole: its errno and context are the refusal.
  std::optional<Error> cause;

  // Error(code, detail, hint) for a failed finding (the cause, if any).
  [[nodiscard]] Error error() const;
  // error() with the step as context: what resolve() throws for it.
  [[nodiscard]] Error refusal() const;
};

// The check names.
inline constexpr const char* kFileExists = "file exists";
inline constexpr const char* kIsNetns = "is a network namespace";
inline constexpr const char* kInitialUserns = "owned by the initial user namespace";
inline constexpr const char* kNotOwn = "not our own namespace";
inline constexpr const char* kNotHost = "not the host's namespace";
inline constexpr const char* kDirTrusted = "directory trusted";
inline constexpr const char* kLinkOwner = "link owner";
inline constexpr const char* kRecordPresent = "record present";
inline constexpr const char* kRecordOwner = "record owner";
inline constexpr const char* kRecordCluster = "record for this cluster";
inline constexpr const char* kRecordBoot = "record from this boot";
inline constexpr const char* kRecordPidns = "record from our pid namespace";
inline constexpr const char* kHolderAlive = "holder alive";
inline constexpr const char* kIdentity = "identity matches";
inline constexpr const char* kSocketOwner = "socket owner";
inline constexpr const char* kSocketServer = "socket server trusted";
inline constexpr const char* kHeader = "header matches";
inline constexpr const char* kLockOwner = "lock owner";
inline constexpr const char* kHolderUnique = "holder is the record's process";
inline constexpr const char* kNamespaceCookie = "namespace ID matches";
inline constexpr const char* kLockHeld = "lock held by the holder";
inline constexpr const char* kSocketSender = "sender is the holder";
inline constexpr const char* kConfigTrusted = "config file trusted";
inline constexpr const char* kHolderDirectory = "holder directory";
inline constexpr const char* kUnrecordedNetns = "unrecorded file opted in";
inline constexpr const char* kEveryHop = "every hop trusted";  // trusted_path.hpp

NETNS_EXEC_API Finding pass(const char* check, std::string detail);

// Whether a passing check's detail text is wanted: by doctor and `netns-holder
// check`, which print every line, but not by resolve(), which only ever shows
// a failure and runs for every command (the text costs more than some of the
// checks). On unless a QuietPasses is alive on this thread.
NETNS_EXEC_API bool pass_details_wanted() noexcept;
class NETNS_EXEC_API QuietPasses {
 public:
  QuietPasses() noexcept;
  ~QuietPasses();
  QuietPasses(const QuietPasses&) = delete;
  QuietPasses& operator=(const QuietPasses&) = delete;

 private:
  bool saved_;
};
// pass() with the detail built only when it is wanted.
template <typename MakeDetail>
Finding pass_with(const char* check, MakeDetail&& make) {
  return pass(check, pass_details_wanted() ? std::string(make()) : std::string());
}
NETNS_EXEC_API Finding fail(const char* check, Errc code, std::string detail,
                            std::string hint = {});
// A failed step that is not itself a check (opening, reading, receiving),
// counted towards the check it was gathering for; `e` is kept as the cause.
NETNS_EXEC_API Finding fail(const char* check, const Error& e);
// The first failure among `findings`, or nullptr.
NETNS_EXEC_API const Finding* first_failure(const std::vector<Finding>& findings);

// Who may have written the files in a holder directory: root, plus uids the
// operator names explicitly (a holder run as another uid).
struct NETNS_EXEC_API Owners {
  std::vector<uid_t> uids;  // besides 0
  // The option of the running program that adds uids here ("--trust-uid"
  // for netns-exec's namespace sources), or empty where there is none (the
  // holder, ceph-csi's config, fence-info): a hint names only options that
  // exist for the reader.
  std::string_view option;
  [[nodiscard]] bool trusted(uid_t uid) const;
  [[nodiscard]] std::string text() const;  // "root" or "root or uid 1000, 1001"
  // ", or name its owner with --trust-uid" (`whose`: "its owner", "the
  // holder's uid"), or "" without an option.
  [[nodiscard]] std::string or_trust(std::string_view whose) const;
};

// --- the namespace descriptor ---------------------------------------------

// What the kernel says about a namespace descriptor, asked once: whether it
// is a network namespace (nsfs, then NS_GET_NSTYPE), its identity, the user
// namespace that owns it (NS_GET_USERNS) and its namespace ID (NS_GET_ID).
// None of it changes while the descriptor is open, so the checks below judge
// these facts and ask the kernel nothing, and the verified-namespace cache
// keeps them with the descriptor it keeps.
struct NETNS_EXEC_API NamespaceFacts {
  std::optional<Error> not_netns;  // why it is not a network namespace (then nothing else is asked)
  NsId id;
  int owner_errno = 0;             // NS_GET_USERNS failed with this (EPERM: an owner outside ours)
  NsId owner;                      // the owning user namespace
  std::optional<uint64_t> cookie;  // NS_GET_ID; nullopt: this kernel has none
};
NETNS_EXEC_API NamespaceFacts read_namespace(int fd, std::string_view shown);

// On nsfs and NS_GET_NSTYPE == CLONE_NEWNET.
NETNS_EXEC_API Finding network_namespace(const NamespaceFacts& ns);
// Owned by the initial user namespace: krbd needs that, and any user can
// create a network namespace owned by a user namespace of its own.
NETNS_EXEC_API Finding initial_user_namespace(const NamespaceFacts& ns, std::string_view shown,
                                              bool allow_other);
NETNS_EXEC_API Finding not_own_namespace(NsId id, NsId own, std::string_view shown, bool allow);

enum class HostNetns { yes, no, unknown };
// Is `id` the host's (initial) network namespace? Certain where the kernel
// gives init_net its fixed inode, or with hostPID through /proc/1/ns/net.
NETNS_EXEC_API HostNetns is_host_netns(NsId id, NsId own);
NETNS_EXEC_API Finding not_host_namespace(NsId id, NsId own, std::string_view shown, bool allow);

// --- provenance -------------------------------------------------------------

// The directory `dirfd` and every directory above it (through "..", as this
// process sees them) are owned by a trusted uid and not writable by group or
// others; a sticky directory (like /tmp) may be writable above a trusted one,
// since nobody else can then rename or replace that one.
NETNS_EXEC_API Finding directory_chain(int dirfd, std::string_view shown, const Owners& owners);
// The same in two steps. What the chain is: each level's stat, from the
// directory itself ([0]) up through "..", "../.." ([1], [2], ...) to our
// root; an fstat and then one fstatat per level, and no path opened.
struct DirectoryChain {
  std::vector<struct stat> levels;
  int failed_errno = 0;  // the stat of the level after the last one failed with this
};
NETNS_EXEC_API DirectoryChain read_directory_chain(int dirfd);
// Judges every level with directory_problem, in order. Only a failing level
// above the directory is read again, through `dirfd`, for its name in the
// message (-1: it is named relative to `shown`, "/h/../..").
NETNS_EXEC_API Finding directory_chain(const DirectoryChain& chain, int dirfd,
                                       std::string_view shown, const Owners& owners);
// The rule for one directory, shared by directory_chain and the walk of
// every hop (trusted_path.hpp): "" when `st` may hold what is trusted, else
// why not ("is owned by uid 1000, not root", "is writable by group or
// others"). `sticky_ok`: a sticky directory may be writable (above the
// holder directory); `read_only`: it is on a read-only mount (its mode bits
// then let nobody write it through this mount).
NETNS_EXEC_API std::string directory_problem(const struct stat& st, bool sticky_ok, bool read_only,
                                             const Owners& owners);
// "0755": a mode as messages show it.
NETNS_EXEC_API std::string mode_octal(mode_t mode);
// `st` (a link's lstat, a record's, a lock's, a socket's) belongs to a trusted uid.
NETNS_EXEC_API Finding file_owner(const char* check, const struct stat& st, std::string_view what,
                                  std::string_view shown, const Owners& owners);

// ceph-csi's config file (`st`, the fstat of what was opened, after every
// symlink of a ConfigMap mount): owned by a trusted uid and not writable by
// group or others. Its paths decide where root's commands run, the host's
// namespace included; a file anyone else can write is not a source for them.
NETNS_EXEC_API Finding config_file(const struct stat& st, std::string_view shown,
                                   const Owners& owners);

// --- which files need a record --------------------------------------------

// A holder directory is one that holds a holder's files: an <ID>.holder.json
// or an <ID>.lock, for any ID (netns-holder takes the lock before it writes
// anything and never deletes it, so a directory a holder ever published in
// stays one). Every namespace file in a holder directory needs its cluster's
// record, whatever the file's name: a second link, a Rook-era name or a
// renamed one is no less a link into /proc. `example` receives one of the
// names found. Reads the directory through one descriptor of its own,
// closed before it returns.
NETNS_EXEC_API bool holds_holder_files(int dirfd, std::string* example);
// The opt-in as each interface spells it, for messages.
inline constexpr const char* kUnrecordedOptIn =
    "--allow-unrecorded-netns (C++ ResolveOptions::allow_unrecorded_netns, C "
    "netns_exec_request_set_allow_unrecorded_netns, Go Cmd.AllowUnrecordedNetns, the nsenter form "
    "and the shims (rbd, mount.ceph, nvme, mount.nfs) NETNS_EXEC_ALLOW_UNRECORDED_NETNS=1)";

// --- the holder record ----------------------------------------------------

// Cheapest and most explanatory first: the cluster, then the boot (after a
// reboot every namespace inode differs too), then the pid namespace (from
// another one the record's pid names another process for us, so nothing
// about the pid means anything).
NETNS_EXEC_API Finding record_for_cluster(const HolderRecord& r, std::string_view cluster_id,
                                          std::string_view shown);
NETNS_EXEC_API Finding record_this_boot(const HolderRecord& r, std::string_view shown);
NETNS_EXEC_API Finding record_this_pid_namespace(const HolderRecord& r, std::string_view shown);
// What the process a record names is now, asked once, in the order that
// makes the answers hang together. Its pid first (`pid`: the record's pid
// names the holder for us; otherwise nothing about the pid is asked): a
// pidfd, then the start time (a pid reused before pidfd_open has another
// start time; after it, the pidfd never names a newcomer). A `holder` that
// already has a pidfd for this record (the verified-namespace cache's) is
// polled instead; a holder that matches receives the new pidfd. Through that
// pidfd, the network namespace it is in and its pidfs inode. Then the lock
// table, where `lock_st` (the lstat of its <ID>.lock) is given and the
// holder is in our pid namespace (only its locks are shown to us). The
// checks below judge these facts and ask the kernel nothing.
struct NETNS_EXEC_API HolderFacts {
  // The pid's start time, read after its pidfd was opened (a kept pidfd: the
  // one it was verified with); nullopt: no such process, or the kept pidfd
  // says it exited.
  std::optional<uint64_t> start_time;
  // The namespace it is in now; when it cannot be told, why (`exited`: it
  // exited while it was looked at).
  std::optional<NsId> netns;
  bool exited = false;
  std::string netns_unread;
  std::optional<uint64_t> pidfs_ino;  // of its pidfd (pidfs: Linux 6.9+)
  // The pids with an FLOCK on the lock file; nullopt: not read (`locks_unread` says why).
  std::optional<std::vector<uint64_t>> lock_pids;
  std::string locks_unread;
};
NETNS_EXEC_API HolderFacts read_holder(const HolderRecord& r, bool pid, const struct stat* lock_st,
                                       HolderRef& holder);
// The record's pid is alive and is the process that has the record's start time.
NETNS_EXEC_API Finding holder_alive(const HolderRecord& r, const HolderFacts& h,
                                    std::string_view shown);
// The record names the namespace that was opened.
NETNS_EXEC_API Finding record_names(const HolderRecord& r, NsId opened, std::string_view shown);
// record_names, and the live holder is still in it.
NETNS_EXEC_API Finding identity_matches(const HolderRecord& r, NsId opened, const HolderFacts& h,
                                        std::string_view shown);
// The identities the kernel never reuses (kernel_ids.hpp). A pid, its start
// tick and a namespace inode are all reused: a holder that dies within its
// first 10 ms tick and a process given its pid in the same tick, in a
// namespace that got the freed inode number, pass holder_alive() and
// identity_matches(). Each of these passes as unknown (known = false) where
// the record (version 1) or this kernel lacks what it compares, and says so.
//
// The pidfs inode of the holder's pidfd is the record's holder_pidfs_ino.
NETNS_EXEC_API Finding holder_is_recorded_process(const HolderRecord& r, const HolderFacts& h,
                                                  std::string_view shown);
// NS_GET_ID of the opened namespace is the record's netns_cookie.
NETNS_EXEC_API Finding namespace_cookie_matches(const HolderRecord& r, const NamespaceFacts& opened,
                                                std::string_view shown);
// The holder still holds its <ID>.lock: /proc/locks has an FLOCK entry for
// the lock file's inode (`lock_st`, its lstat; nullptr: there is no lock
// file, which is only reported) taken by the record's pid. Only a holder in
// our pid namespace can be seen there; otherwise the check cannot be made.
NETNS_EXEC_API Finding lock_held_by_holder(const HolderRecord& r, const HolderFacts& h,
                                           const struct stat* lock_st, std::string_view lock_shown);
// Spawn-time re-check: the holder that vouched is still alive. With a pidfd
// no pid reuse can fool it; without one, the start time is compared.
NETNS_EXEC_API Finding holder_still_alive(const HolderRecord& r, const HolderRef& holder);

// --- the one judge ----------------------------------------------------------

// Everything the caller gathered about one namespace source, as facts:
// nothing here is looked up again. The names a refusal shows, the site, what
// the target descriptor is, the record and its lock, the caller's own
// findings about the file, and (optional) what the record's holder is now.
struct Gathered {
  // Names. `record_shown` is "" when no cluster names a record.
  std::string_view path, dir_shown, record_shown, lock_shown;
  std::string_view cluster_id;  // the cluster asked about ("": any)
  bool holders_link = false;    // the file is named as a holder's <ID>.net.ns
  // The site: the directory (-1: none at hand), and whether it is the
  // kernel's /proc/PID/ns (never a holder directory).
  int dirfd = -1;
  bool procfs = false;
  // The target: the namespace the record must name, its descriptor's facts
  // (nullptr: none at hand), whether it is this process's own.
  NsId opened;
  const NamespaceFacts* opened_ns = nullptr;
  bool own_namespace = false;
  // The record (nullptr: none; `unreadable`: there but not readable), its
  // fstatat, and the lstat of its <ID>.lock (nullptr: no lock file).
  const HolderRecord* record = nullptr;
  const struct stat* record_st = nullptr;
  const Error* unreadable = nullptr;
  const struct stat* lock_st = nullptr;
  // The caller's findings about the file itself (type, descriptor, directory).
  std::vector<Finding> file;
  // What the holder is now (read_holder); nullptr: not read yet.
  const HolderFacts* holder = nullptr;
};

// What the caller allows.
struct Policy {
  Owners owners;
  // How the record's pid is used. `link`: the namespace came through the
  // holder's /proc/<pid> link, which names the holder only for readers in its
  // pid namespace (refused otherwise); `socket`: the holder sent it (the
  // sender's checks stand for the pid); `probe`: the pid is checked where it
  // means the holder, and the lock is the proof elsewhere (`netns-holder
  // check`, fence-info).
  enum class Pid { link, socket, probe } pid = Pid::link;
  // "require" (netns-exec's default), or the identity policy that makes a
  // holder's record optional ("if-present", "off").
  std::string_view identity = "require";
  bool allow_unrecorded = false;  // allow_unrecorded_netns
  bool allow_own_netns = false;   // an unrecorded file may be our own namespace
};

// THE judge: every rule over what was gathered, once, in this order, up to
// the first fatal failure:
//   1. origin: record present, record owner, for this cluster, from this
//      boot, from our pid namespace (a link only)
//   2. the file, its descriptor and its directory (Gathered::file): only a
//      record from our boot and pid namespace makes a /proc/<pid> link mean
//      the holder, so "dangling" or "own namespace" would mislead before
//   3. exemptions, for a file no record vouches for: a holder's link needs
//      its record (unless the identity policy makes it optional); a file in
//      a holder directory needs its cluster's (holder directory); anywhere
//      else it is used only when opted in, or when it is our own namespace
//      and allow_own_netns is given (unrecorded file opted in)
//   4. the holder (only with Gathered::holder): alive and the recorded
//      process, still in the namespace the record names, the namespace ID,
//      the lock's type and owner, the lock held by the holder.
NETNS_EXEC_API std::vector<Finding> judge(const Gathered& g, const Policy& p);
// The record's pid names its holder for us (read_holder's `pid`).
NETNS_EXEC_API bool pid_names_holder(const Gathered& g, const Policy& p);
// judge, then, where a record is and nothing failed fatally, the holder read
// (read_holder, through `holder`: a cached pidfd is polled, a new one kept)
// and judged again. resolve(), `netns-holder check`, fence-info and the
// guard's holder log run this.
NETNS_EXEC_API std::vector<Finding> judge_holder(Gathered& g, const Policy& p, HolderRef& holder);

// --- the holder socket ----------------------------------------------------

// SO_PEERCRED of a connected holder socket: the server is a trusted uid, and
// where a record is given (readable next to the socket, same pid namespace),
// the process that record names.
NETNS_EXEC_API Finding socket_server(int sock, std::string_view shown, const Owners& owners,
                                     const HolderRecord* record);
// The process that sent the namespace (the credentials the kernel attached to
// the message, receive_fd): a trusted uid, and where a record is given, the
// record's holder: by the pidfs inode of its pidfd where the message brought
// one and the record has one (any pid namespace), otherwise by its pid where
// the holder is in our pid namespace. SO_PEERCRED (socket_server) only names
// whoever called listen(), which may have passed the socket on.
NETNS_EXEC_API Finding socket_sender(const Sender& sender, std::string_view shown,
                                     const Owners& owners, const HolderRecord* record);
// The header names the cluster asked for (when `expected_id` is set) and the
// namespace that came with it.
NETNS_EXEC_API Finding header_matches(const FdHeader& header, NsId received,
                                      std::string_view expected_id, std::string_view shown);

}  // namespace netns::trust
