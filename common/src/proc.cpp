#include "netns/proc.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <cerrno>
#include <charconv>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns {

namespace {

template <typename T>
bool parse_number(std::string_view token, T* out) {
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), *out);
  return !token.empty() && ec == std::errc() && ptr == token.data() + token.size();
}

// Reads a /proc file of `pid`; nullopt when the process is gone (ENOENT at
// open, ESRCH when it exited after the open).
std::optional<std::string> read_proc_file(const std::string& path) {
  auto fd = open_at_if_exists(AT_FDCWD, path, O_RDONLY);
  if (!fd) return std::nullopt;
  try {
    return read_all(fd->get(), path, 4096);
  } catch (const Error& e) {
    if (e.sys_errno() == ESRCH) return std::nullopt;
    throw;
  }
}

}  // namespace

ProcStat parse_stat(std::string_view line) {
  auto bad = [&](const std::string& why) {
    return Error(Errc::invalid_argument, "malformed /proc/PID/stat line: " + why);
  };
  const size_t open = line.find('(');
  const size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    throw bad("no command name in parentheses");
  ProcStat out;
  out.comm = std::string(line.substr(open + 1, close - open - 1));
  std::string_view rest = line.substr(close + 1);
  // After ')' come fields 3, 4, ...: field N is the (N-2)th of them.
  int field = 2;
  size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && (rest[pos] == ' ' || rest[pos] == '\n')) ++pos;
    if (pos >= rest.size()) break;
    size_t end = rest.find_first_of(" \n", pos);
    if (end == std::string_view::npos) end = rest.size();
    const std::string_view token = rest.substr(pos, end - pos);
    ++field;
    if (field == 3) {
      if (token.size() != 1) throw bad("field 3 is not a process state");
      out.state = token.front();
    } else if (field == 4) {
      if (!parse_number(token, &out.ppid)) throw bad("field 4 is not a number");
    } else if (field == 22) {
      if (!parse_number(token, &out.start_time)) throw bad("field 22 is not a number");
      return out;
    }
    pos = end;
  }
  throw bad("fewer than 22 fields");
}

std::optional<ProcStat> read_stat(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::optional<std::string> line = read_proc_file(path);
  if (!line) return std::nullopt;
  try {
    return parse_stat(*line);
  } catch (Error& e) {
    throw e.context(quote(path));
  }
}

uint64_t parse_stat_start_time(std::string_view line) { return parse_stat(line).start_time; }

std::optional<uint64_t> pid_start_time(pid_t pid) {
  std::optional<ProcStat> stat = read_stat(pid);
  if (!stat) return std::nullopt;
  return stat->start_time;
}

std::set<pid_t> own_children() {
  std::set<pid_t> out;
  UniqueFd tasks = open_fd("/proc/self/task", O_RDONLY | O_DIRECTORY);
  DIR* dir = ::fdopendir(tasks.get());
  if (dir == nullptr) throw Error::sys("fdopendir", "/proc/self/task", errno);
  static_cast<void>(tasks.release());  // the DIR owns it now
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    // A thread that exited since readdir has no list any more: it had no
    // children left either (they went to the main thread).
    std::optional<std::string> list =
        read_proc_file(std::string("/proc/self/task/") + e->d_name + "/children");
    if (!list) continue;
    std::string_view text = *list;
    while (!text.empty()) {
      const size_t end = text.find(' ');
      pid_t pid = 0;
      if (parse_number(text.substr(0, end), &pid)) out.insert(pid);
      if (end == std::string_view::npos) break;
      text.remove_prefix(end + 1);
    }
  }
  ::closedir(dir);
  return out;
}

std::string read_boot_id() {
  std::string id = read_file("/proc/sys/kernel/random/boot_id", 128);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

}  // namespace netns
