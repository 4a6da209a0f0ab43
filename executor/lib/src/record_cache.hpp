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
// A holder that exited lets go of its namespace when it is next looked up,
// and every such entry goes the next time a record is cached (a replaced
// holder's first use does that), so a namespace nobody holds is not kept
// alive here.
#include <sys/stat.h>

#include <optional>

#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"
#include "netns/unique_fd.hpp"

namespace netns::exec::detail {

// The cached record for a file whose fstatat is `st`, if any.
std::optional<HolderRecord> cached_record(const struct stat& st);
void cache_record(const struct stat& st, const HolderRecord& record);

// A dup of the verified pidfd for the record file `st`, if it is still alive.
UniqueFd cached_pidfd(const struct stat& st);
void cache_pidfd(const struct stat& st, int pidfd);

// The namespace a link (lstat `link`) with the record `record` led to, as a
// dup of the descriptor that was checked, with a dup of the holder's pidfd,
// if that holder is alive.
struct VerifiedNamespace {
  UniqueFd fd;
  NsId id;
  UniqueFd pidfd;
};
std::optional<VerifiedNamespace> cached_namespace(const struct stat& link, const struct stat& record);
// Only for a descriptor that passed every check, with the record's pidfd
// cached: its owner must be the initial user namespace (checked by the caller).
void cache_namespace(const struct stat& link, const struct stat& record, int nsfd, NsId id);

}  // namespace netns::exec::detail
