#pragma once
// The shared directory and the per-cluster lock that makes a holder the only
// one for its cluster ID on this node.
#include <sys/types.h>

#include <string>

#include "netns/cluster_id.hpp"
#include "netns/trust.hpp"
#include "netns/unique_fd.hpp"

namespace netns::holder {

// Creates `dir` (and its parents) with mode 0755 when missing, then opens it
// once; every later file operation is relative to this descriptor, so a
// directory renamed or replaced under us cannot redirect our writes.
UniqueFd open_holder_dir(const std::string& dir, bool create);

// Whose files this holder trusts in its directory: root and its own euid.
trust::Owners holder_owners();

// The trust policy's provenance rule on our own --dir, before anything is
// published there: it and every directory above it owned by root (or us) and
// not writable by others. Throws Errc::untrusted naming the directory.
void require_trusted_dir(int dirfd, const std::string& dir_shown);

// Takes flock(LOCK_EX|LOCK_NB) on <ID>.lock and writes our pid into it.
// Refuses (Errc::untrusted) a lock file owned by anyone but root or us: a
// planted one could be held by its owner to keep every holder out.
// Throws Errc::busy naming the pid of the holder that has it.
// The lock file is never deleted: unlinking a lock file lets two processes
// each lock a different inode under the same name.
UniqueFd take_holder_lock(int dirfd, const HolderFileNames& names, const std::string& dir_shown);

// The pid written in a lock file ("unknown" when it is empty or garbage).
std::string lock_owner_text(int lock_fd);

}  // namespace netns::holder
