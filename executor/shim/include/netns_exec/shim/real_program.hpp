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

// The mark a form of netns-exec leaves in the environment of the real
// program it execs: which tool it stood in for and which file it took for
// that tool's real program. A second netns-exec installed as a copy (not a
// link: another identity) somewhere on PATH is taken for the real program
// by the first; started as that tool with a mark naming its own file, it
// knows it is not the real program, and refuses instead of exec-ing the
// first again (two copies would otherwise exec each other for ever).
// NETNS_EXEC_EXEC_MARK="TOOL DEV INO PATH".
inline constexpr const char* kExecMarkVariable = "NETNS_EXEC_EXEC_MARK";
struct ExecMark {
  std::string tool;
  FileIdentity file;
  std::string path;
};
// NETNS_EXEC_EXEC_MARK parsed; nullopt when unset or not in that form.
std::optional<ExecMark> exec_mark_from_environment();
// Sets the mark for `program` (stat'ed; nothing is set when it cannot be),
// just before the exec.
void set_exec_mark(std::string_view tool, const char* program);
// Whether this process, running as `tool` with identity `self`, is the file
// a netns-exec form took for the real `tool`: then it is another netns-exec,
// and nothing may run (the caller refuses, naming the mark's path).
bool is_exec_loop(std::string_view tool, const std::optional<ExecMark>& mark,
                  const FileIdentity& self);

// Which file a call of the tool `name` really runs: a path is that file;
// a name is found as its caller finds it: mount(8) and umount(8) run mount.TYPE / umount.TYPE
// helpers from util-linux's FS_SEARCH_PATH, "/sbin:/sbin/fs.d:/sbin/fs"
// (configure.ac's default; libmount's helper lookup), never from PATH;
// every other caller (execvp, Go's exec.LookPath) takes the first
// executable of that name on PATH. `is_netns_exec`: that file is one of
// `netns_exec` (netns_exec_identities), so the shim is what runs.
struct WhatRuns {
  std::string path;  // "" when nothing of that name is found
  std::string how;   // "the first \"rbd\" on PATH", "mount(8)'s helper search (...)"
  bool is_netns_exec = false;
};
WhatRuns what_runs(std::string_view name, std::string_view path_list,
                   const std::vector<FileIdentity>& netns_exec);
// The files that are this netns-exec: /proc/self/exe, and the netns-exec
// first on `path_list` (the plugin image's launcher, whose /proc/self/exe is
// its dynamic loader; its tool links resolve to the launcher).
std::vector<FileIdentity> netns_exec_identities(std::string_view path_list);

// The same with the list from the environment and self from /proc/self/exe:
// NETNS_EXEC_REAL_PATH when set (PATH syntax: where the real programs are,
// for callers that do not pass a PATH — mount(8) runs its helpers with PATH
// removed from the environment), else PATH, else kDefaultPath. Throws Error
// when /proc/self/exe cannot be stat'ed.
RealProgram find_real_program(std::string_view name, std::string_view invoked_as);

}  // namespace netns::exec::shim
