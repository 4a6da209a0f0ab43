#pragma once
// The common path made cheap, without dropping a check. resolve() runs for
// every rbd map of a busy plugin, and most of its cost was re-reading and
// re-parsing the same record, re-reading /proc/<pid>/stat for the same
// holder, and following the same link into /proc again.
//
// A record file is keyed by its identity (device, inode, size, mtime, ctime,
// all from a fresh fstatat): a holder replaces its record by rename, so a new
// record is a new key. With it are kept:
//   - the pidfd whose start time was verified once: a pidfd never names
//     another process, so while it has not become readable (exited) the
//     verification still holds;
//   - the namespace a link led to when every check passed, with the link's
//     own identity (a symlink's target cannot change in place: a new link is
//     a new inode). Its descriptor was checked on nsfs, a network namespace
//     owned by the initial user namespace: facts of the namespace, which
//     never change. Whether it is still the live holder's is not such a
//     fact: resolve() checks the record, the pidfd and the holder's current
//     namespace against it on every call.
// Everything else (the directories, owners, cluster, boot, pid namespace,
// not our own, not the host's, liveness) is checked on every call.
//
// A holder that exited lets go of its namespace when it is next looked up
// (its liveness check fails and resolve() forgets it), and every such entry
// goes the next time a record is cached (a replaced holder's first use does
// that), so a namespace nobody holds is not kept alive here.
//
// A refusal is never the cache's: when a check fails on what it gave,
// resolve() forgets the entry and says it as the full path does.
#include <sys/stat.h>

#include <optional>

#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/source.hpp"

namespace netns::exec::detail {

// The cached record for a file whose fstatat is `st`, if any.
std::optional<HolderRecord> cached_record(const struct stat& st);
void cache_record(const struct stat& st, const HolderRecord& record);

// A dup of the verified pidfd for the record file `st`, if it is still alive.
UniqueFd cached_pidfd(const struct stat& st);
void cache_pidfd(const struct stat& st, int pidfd);

// The namespace a link (lstat `link`) with the record `record` led to: the
// descriptor that was checked and the holder's pidfd. Whether that holder is
// still alive and in it is for the caller to check, on that pidfd.
struct VerifiedNamespace {
  UniqueFd fd;
  NsId id;
  UniqueFd pidfd;
};
// How the descriptors are handed out: copies (the caller keeps them), or the
// cache's own, lent until give_back() (exec::run(), done with them when its
// spawn returns: two dups and two closes fewer). While they are lent, another
// caller for the same holder takes the full path.
enum class Handout { copy, lend };
std::optional<VerifiedNamespace> cached_namespace(const struct stat& link,
                                                  const struct stat& record, Handout how);
// Back into the entry they were lent from, if it is still there and empty;
// otherwise they are closed.
void give_back(const struct stat& link, const struct stat& record, UniqueFd nsfd, UniqueFd pidfd);
// Only for a descriptor that passed every check, with the record's pidfd
// cached: its owner must be the initial user namespace (checked by the caller).
void cache_namespace(const struct stat& link, const struct stat& record, int nsfd, NsId id);
// A check failed on what the cache gave: drop that namespace.
void forget_namespace(const struct stat& record);

// What a resolve() may take from the cache, and what it took (the keys of
// the entry, to give lent descriptors back to).
struct CacheUse {
  Handout handout = Handout::copy;
  bool used = false;
  struct stat link {};
  struct stat record {};
};
// exec::run()'s resolve(): the same checks, with the cache's descriptors lent
// (`use` says from where, if they were); return_lent() gives them back.
ResolvedNamespace resolve_lending(const Source& source, const ResolveOptions& options,
                                  CacheUse& use);
void return_lent(ResolvedNamespace& ns, const CacheUse& use);

}  // namespace netns::exec::detail
