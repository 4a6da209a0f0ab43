#include "netns/proc.hpp"

#include <fcntl.h>

#include <cerrno>
#include <charconv>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns {

uint64_t parse_stat_start_time(std::string_view line) {
  auto bad = [&](const char* why) {
    return Error(Errc::invalid_argument, std::string("malformed /proc/PID/stat line: ") + why);
  };
  size_t close = line.rfind(')');
  if (close == std::string_view::npos) throw bad("no ')' after the command name");
  std::string_view rest = line.substr(close + 1);
  // After ')' come fields 3, 4, ...; we want field 22, the 20th of them.
  constexpr int kWanted = 22 - 2;
  int field = 0;
  size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && rest[pos] == ' ') ++pos;
    if (pos >= rest.size()) break;
    size_t end = rest.find(' ', pos);
    if (end == std::string_view::npos) end = rest.size();
    if (++field == kWanted) {
      std::string_view token = rest.substr(pos, end - pos);
      while (!token.empty() && token.back() == '\n') token.remove_suffix(1);
      uint64_t value = 0;
      auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
      if (ec != std::errc() || ptr != token.data() + token.size() || token.empty())
        throw bad("field 22 is not a number");
      return value;
    }
    pos = end;
  }
  throw bad("fewer than 22 fields");
}

std::optional<uint64_t> pid_start_time(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  auto fd = open_at_if_exists(AT_FDCWD, path, O_RDONLY);
  if (!fd) return std::nullopt;
  std::string line;
  try {
    line = read_all(fd->get(), path, 4096);
  } catch (const Error& e) {
    if (e.sys_errno() == ESRCH) return std::nullopt;  // exited after open
    throw;
  }
  try {
    return parse_stat_start_time(line);
  } catch (Error& e) {
    throw e.context(quote(path));
  }
}

std::string read_boot_id() {
  std::string id = read_file("/proc/sys/kernel/random/boot_id", 128);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

}  // namespace netns
