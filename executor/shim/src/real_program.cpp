#include "netns_exec/shim/real_program.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>

#include "netns/error.hpp"
#include "netns/path.hpp"

namespace netns::exec::shim {

std::string_view basename_of(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> absolute_path_entries(std::string_view path_list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path_list.size()) {
    size_t end = path_list.find(':', start);
    if (end == std::string_view::npos) end = path_list.size();
    std::string_view entry = path_list.substr(start, end - start);
    if (!entry.empty() && entry.front() == '/') out.emplace_back(entry);
    start = end + 1;
  }
  return out;
}

std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{st.st_dev, st.st_ino};
}

RealProgram find_real_program(std::string_view name, std::string_view invoked_as,
                              std::string_view path_list, const FileIdentity& self) {
  RealProgram result;
  const std::vector<std::string> entries = absolute_path_entries(path_list);

  // Where the shim itself sits: argv[0]'s directory, or the PATH entry the
  // caller's execvp found us in.
  std::optional<FileIdentity> own_dir;
  std::string own_dir_name;
  // What argv[0] names is the shim too, whatever /proc/self/exe says: the
  // plugin image starts netns-exec through its own dynamic loader (a
  // launcher script), so there /proc/self/exe is the loader.
  std::optional<FileIdentity> invoked;
  if (invoked_as.find('/') != std::string_view::npos) {
    invoked = identity_of(std::string(invoked_as));
    own_dir_name = split_path(invoked_as).first;
    own_dir = identity_of(own_dir_name);
  } else {
    for (const auto& entry : entries)
      if (auto id = identity_of(join_path(entry, name)); id && *id == self) {
        own_dir_name = entry;
        own_dir = identity_of(entry);
        break;
      }
  }
  size_t first = 0;
  if (own_dir) {
    for (size_t i = 0; i < entries.size(); ++i)
      if (identity_of(entries[i]) == own_dir) {
        first = i + 1;
        result.reasons.push_back("the shim's directory " + quote(own_dir_name) + " is PATH entry " +
                                 std::to_string(i + 1) + " (" + quote(entries[i]) +
                                 "): the search starts after it");
        break;
      }
    if (first == 0)
      result.reasons.push_back("the shim's directory " + quote(own_dir_name) +
                               " is not on PATH: all of PATH is searched");
  }

  for (size_t i = first; i < entries.size(); ++i) {
    const std::string candidate = join_path(entries[i], name);
    struct stat st {};
    if (::stat(candidate.c_str(), &st) != 0) continue;  // not there: the usual case
    const FileIdentity id{st.st_dev, st.st_ino};
    if (id == self || id == invoked) {
      result.reasons.push_back(quote(candidate) + ": skipped, it is netns-exec itself");
      continue;
    }
    if (!S_ISREG(st.st_mode) || ::access(candidate.c_str(), X_OK) != 0) {
      result.reasons.push_back(quote(candidate) + ": skipped, not an executable file");
      continue;
    }
    result.reasons.push_back(quote(candidate) + ": taken, the first " + quote(name) +
                             " on PATH after the shim that is not netns-exec");
    result.path = candidate;
    return result;
  }
  result.reasons.push_back("no " + quote(name) + " other than netns-exec on PATH " +
                           quote(path_list));
  return result;
}

std::optional<ExecMark> exec_mark_from_environment() {
  const char* value = ::getenv(kExecMarkVariable);
  if (!value) return std::nullopt;
  const std::string_view text = value;
  ExecMark mark;
  const size_t a = text.find(' ');
  const size_t b = a == std::string_view::npos ? a : text.find(' ', a + 1);
  const size_t c = b == std::string_view::npos ? b : text.find(' ', b + 1);
  if (c == std::string_view::npos) return std::nullopt;
  mark.tool = text.substr(0, a);
  uint64_t dev = 0, ino = 0;
  auto number = [](std::string_view t, uint64_t& out) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return !t.empty() && ec == std::errc() && end == t.data() + t.size();
  };
  if (!number(text.substr(a + 1, b - a - 1), dev) || !number(text.substr(b + 1, c - b - 1), ino))
    return std::nullopt;
  mark.file = FileIdentity{static_cast<dev_t>(dev), static_cast<ino_t>(ino)};
  mark.path = text.substr(c + 1);
  return mark;
}

void set_exec_mark(std::string_view tool, const char* program) {
  struct stat st {};
  if (::stat(program, &st) != 0) return;  // the exec fails too, and says why
  const std::string value = std::string(tool) + " " + std::to_string(st.st_dev) + " " +
                            std::to_string(st.st_ino) + " " + program;
  ::setenv(kExecMarkVariable, value.c_str(), 1);
}

bool is_exec_loop(std::string_view tool, const std::optional<ExecMark>& mark,
                  const FileIdentity& self) {
  return mark && mark->tool == tool && mark->file == self;
}

namespace {

// The first executable regular file `name` in `dirs`, or "".
std::string first_executable(std::string_view name, const std::vector<std::string>& dirs) {
  for (const auto& dir : dirs) {
    const std::string candidate = join_path(dir, name);
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

}  // namespace

WhatRuns what_runs(std::string_view name, std::string_view path_list,
                   const std::vector<FileIdentity>& netns_exec) {
  WhatRuns w;
  if (name.find('/') != std::string_view::npos) {
    w.path = name;
    w.how = "the path given";
  } else if (name.starts_with("mount.") || name.starts_with("umount.")) {
    w.path = first_executable(name, {"/sbin", "/sbin/fs.d", "/sbin/fs"});
    w.how = std::string(name.starts_with("mount.") ? "mount(8)" : "umount(8)") +
            "'s helper search (/sbin, /sbin/fs.d, /sbin/fs; not PATH)";
  } else {
    w.path = first_executable(name, absolute_path_entries(path_list));
    w.how = "the first " + quote(name) + " on PATH";
  }
  if (auto id = w.path.empty() ? std::nullopt : identity_of(w.path))
    for (const auto& n : netns_exec) w.is_netns_exec = w.is_netns_exec || n == *id;
  return w;
}

std::vector<FileIdentity> netns_exec_identities(std::string_view path_list) {
  std::vector<FileIdentity> out;
  if (auto self = identity_of("/proc/self/exe")) out.push_back(*self);
  const std::string launcher = first_executable("netns-exec", absolute_path_entries(path_list));
  if (auto id = launcher.empty() ? std::nullopt : identity_of(launcher)) out.push_back(*id);
  return out;
}

RealProgram find_real_program(std::string_view name, std::string_view invoked_as) {
  auto self = identity_of("/proc/self/exe");
  if (!self) throw Error::sys("stat", "/proc/self/exe", errno);
  const char* path = ::getenv("NETNS_EXEC_REAL_PATH");
  if (!path || !*path) path = ::getenv("PATH");
  return find_real_program(name, invoked_as, path ? path : kDefaultPath, *self);
}

}  // namespace netns::exec::shim
