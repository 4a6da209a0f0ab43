#pragma once
// The common path made cheap, without dropping a check. resolve() runs for
// every rbd map of a busy plugin, and most of its cost was re-reading and
// re-parsing the same record and re-reading /proc/<pid>/stat for the same
// holder. A record file is keyed by its identity (device, inode, size, mtime,
// ctime, all from a fresh fstatat): a holder replaces its record by rename,
// so a new record is a new key. With it is kept the pidfd whose start time was
// verified once; a pidfd never names another process, so while it has not
// become readable (exited) the verification still holds. Everything else
// (owners, cluster, boot, pid namespace, the namespace identity through the
// pidfd, liveness) is checked on every call.
#include <sys/stat.h>

#include <optional>

#include "netns/holder_record.hpp"
#include "netns/unique_fd.hpp"

namespace netns::exec::detail {

// The cached record for a file whose fstatat is `st`, if any.
std::optional<HolderRecord> cached_record(const struct stat& st);
void cache_record(const struct stat& st, const HolderRecord& record);

// A dup of the verified pidfd for the record file `st`, if it is still alive.
UniqueFd cached_pidfd(const struct stat& st);
void cache_pidfd(const struct stat& st, int pidfd);

}  // namespace netns::exec::detail
