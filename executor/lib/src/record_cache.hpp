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
//     a new inode), so the link is not followed into /proc again, with
//     what the kernel said about the descriptor (trust::NamespaceFacts: its
//     type, owner and namespace ID never change while it is open).
// The cache keeps facts, never a verdict: what it gives is judged by the
// same checks as what is opened afresh (the one record check, trust.hpp):
// the directories, owners, the descriptor's type and owner, cluster, boot,
// pid namespace, not our own, not the host's, the holder alive (its cached
// pidfd polled), in the namespace, the recorded process, the namespace ID
// and the lock.
//
// A holder that exited lets go of its namespace when it is next looked up
// (its liveness check fails and resolve() forgets it), and every such entry
// goes the next time a record is cached (a replaced holder's first use does
// that), so a namespace nobody holds is not kept alive here.
//
// A refusal is worded by the check that failed, as without the cache; the
// entry it came from is forgotten.
#include <sys/stat.h>

#include <optional>

#include "netns/holder_record.hpp"
#include "netns/holder_ref.hpp"
#include "netns/nsfd.hpp"
#include "netns/trust.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/source.hpp"

namespace netns::exec::detail {

// The cached record for a file whose fstatat is `st`, if any.
std::optional<HolderRecord> cached_record(const struct stat& st);
void cache_record(const struct stat& st, const HolderRecord& record);

// The holder verified for the record file `st` (a dup of its pidfd), if it
// is still alive; empty otherwise. The record check polls that pidfd instead
// of opening one: a pidfd never names another process.
HolderRef cached_holder(const struct stat& st);
void cache_pidfd(const struct stat& st, int pidfd);

// The namespace a link (lstat `link`) with the record `record` led to when
// every check passed, while the holder verified with it has not exited, and
// what the kernel said about its descriptor then (which cannot change while
// it is open). Every check is judged again by the caller on every call, as
// for a link followed afresh; whether the holder is still in it is asked
// afresh.
struct VerifiedNamespace {
  UniqueFd fd;
  trust::NamespaceFacts facts;
};
std::optional<VerifiedNamespace> cached_namespace(const struct stat& link,
                                                  const struct stat& record);
// Only for a descriptor that passed every check, with the record's pidfd
// cached: its owner must be the initial user namespace (checked by the caller).
void cache_namespace(const struct stat& link, const struct stat& record, int nsfd,
                     const trust::NamespaceFacts& facts);
// A check failed on what the cache gave: drop that namespace.
void forget_namespace(const struct stat& record);

// What a resolve() took from the cache (the key of the namespace it took).
struct CacheUse {
  bool used = false;
  struct stat record {};
};

}  // namespace netns::exec::detail
