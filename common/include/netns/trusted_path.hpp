#pragma once
// Provenance over every hop. A path a user names (a holder's link, its
// directory, ceph-csi's config file) is walked component by component from
// "/" with O_PATH|O_NOFOLLOW descriptors, each opened relative to the one
// before (openat), each looked at with fstat; every symlink is read on its
// own descriptor (readlinkat) and followed here, never by the kernel, with
// the kernel's own hop limit. So every directory and every symlink the path
// passes through is seen and checked, whatever fs.protected_symlinks says
// (that sysctl only governs symlinks the kernel follows).
//
// The rule for each hop (walk_path below; a directory's is
// trust::directory_problem, the one copy, shared with directory_chain):
//   - a directory is owned by a trusted uid and not writable by group or
//     others, unless it is sticky (like /tmp: nobody else can rename or
//     replace what a trusted uid put there) or on a read-only mount (a
//     ConfigMap volume is a 0777 directory, mounted read-only);
//   - a symlink is owned by a trusted uid (whoever owns one chooses where
//     the path goes on; a sticky directory does not protect against its
//     own owner);
//   - what is on procfs is the kernel's: /proc/PID directories belong to
//     their process's uid and nobody can create entries in them; a procfs
//     symlink (/proc/self, /proc/PID/ns/net, /proc/self/fd/N) is followed by
//     the kernel, because its text is not a path (a "magic link"), and one in
//     the middle of a path must lead to another procfs directory.
// The directory that holds the named entry is not judged here: that is the
// holder directory, whose rule is stricter (trust::directory_chain: not even
// sticky) and is a check of its own; neither is the named entry's own owner
// (trust::file_owner, "link owner"). Everything the entry's symlinks lead
// through is.
#include <sys/stat.h>

#include <string>
#include <string_view>

#include "netns/trust.hpp"
#include "netns/unique_fd.hpp"

namespace netns::trust {

// What a walk reached.
struct WalkedPath {
  bool found = false;    // false: a component, the entry or its target does not exist (ENOENT)
  UniqueFd dir;          // O_PATH: the directory that holds the named entry
  std::string name;      // the named entry's name in `dir`
  struct stat entry {};  // the named entry's own lstat
  UniqueFd
      target;  // O_PATH: what the entry leads to after every symlink (the entry itself otherwise)
  struct stat target_st {};
};

// How far a walk goes and what it judges.
struct WalkOptions {
  // Follow the named entry's symlinks to their end (`target`); otherwise
  // `target` is the entry itself.
  bool follow_entry = true;
  // Judge the directory that holds the entry by the rule of the way (a
  // config file's); false: it is a holder directory, judged by
  // directory_chain, which the caller runs.
  bool judge_entry_dir = false;
};

// Walks `path` (relative: from the working directory, which is walked from
// "/" too). Returns the first hop that fails the rule (Errc::untrusted), or
// a pass; a missing component is a pass with found = false. A failed system
// call throws netns::Error naming it and the hop's path (ELOOP after 40
// symlinks, as the kernel counts, naming `path`). At most three descriptors
// are open at once, `dir` included, and two once it returns.
Finding walk_path(std::string_view path, const Owners& owners, const WalkOptions& options,
                  WalkedPath* out);

// A file a user names for its content (ceph-csi's config): walk_path, then
// open_regular_at's rules (non-blocking, a regular file). Throws the failed
// hop's Error, or ENOENT.
UniqueFd open_trusted_regular(const std::string& path, const Owners& owners);

}  // namespace netns::trust
