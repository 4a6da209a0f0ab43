#pragma once
// The real program behind a shim: netns-exec installed as `rbd`, `mount.ceph`
// or `nsenter` (a symlink or hard link) execs the program of that name that
// comes after its own directory on PATH, the way ccache's masquerade links
// find the compiler. Directories and programs are compared by identity
// (st_dev, st_ino), never by string: /sbin may be a symlink to /usr/sbin, and
// a second link to netns-exec anywhere on PATH is still netns-exec.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netns::exec::shim {

// PATH when the environment has none.
inline constexpr const char* kDefaultPath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// "rbd" for "/usr/local/bin/rbd" (argv[0] names a form by its basename).
std::string_view basename_of(std::string_view path);

// PATH's absolute entries in order: an empty or relative entry is the
// current directory (or below it), never a place to take a program from.
std::vector<std::string> absolute_path_entries(std::string_view path_list);

struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};
// stat() (following symlinks); nullopt when it fails.
std::optional<FileIdentity> identity_of(const std::string& path);

struct RealProgram {
  std::string path;  // "" when none was found
  // One sentence each, in search order: why each candidate was taken or
  // skipped ("/usr/local/bin/rbd: netns-exec itself"), for `shim explain`.
  std::vector<std::string> reasons;
  [[nodiscard]] bool found() const { return !path.empty(); }
};

// Searches `path_list` (PATH syntax; empty and relative entries are skipped:
// the current directory is never searched) for an executable `name` that is
// not `self` (netns-exec's own identity, from /proc/self/exe). The search
// starts after the entry that is the shim's directory: `invoked_as` is
// argv[0]; when it holds a '/', its directory is the shim's, otherwise the
// first PATH entry whose `name` is `self`. When the shim's directory is not
// on PATH at all (mount(8) runs helpers from its own fixed list), the whole
// PATH is searched, still never `self`.
RealProgram find_real_program(std::string_view name, std::string_view invoked_as,
                              std::string_view path_list, const FileIdentity& self);

// The same with the list from the environment and self from /proc/self/exe:
// NETNS_EXEC_REAL_PATH when set (PATH syntax: where the real programs are,
// for callers that do not pass a PATH — mount(8) runs its helpers with PATH
// removed from the environment), else PATH, else kDefaultPath. Throws Error
// when /proc/self/exe cannot be stat'ed.
RealProgram find_real_program(std::string_view name, std::string_view invoked_as);

}  // namespace netns::exec::shim
