#include "classify.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::ceph::detail {

namespace {

constexpr size_t kExcerptLines = 3;
constexpr size_t kExcerptChars = 600;

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += " | ";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return std::string(s);
}

// Runs `modprobe NAME` in the caller's namespace (a module is node-wide).
std::string try_modprobe(const Settings& settings, std::string_view name) {
  spawn::Command command;
  command.argv = {settings.modprobe, std::string(name)};
  command.env = settings.env;
  command.timeout = std::min<std::chrono::nanoseconds>(settings.timeout, std::chrono::seconds(30));
  command.kill_grace = std::chrono::seconds(1);
  command.output_limit = 16 << 10;
  spawn::Result r = spawn::run(command);
  if (r.outcome.success()) return {};
  std::string why = settings.modprobe + " " + std::string(name) + ": " + r.outcome.describe();
  std::string excerpt = output_excerpt(r);
  if (!excerpt.empty()) why += ": " + excerpt;
  return why;
}

bool filesystem_listed(const Settings& settings, std::string_view fs_type) {
  std::string listed;
  try {
    listed = read_file(settings.proc_filesystems, 1 << 20);
  } catch (const Error&) {
    return false;
  }
  // "nodev\tceph\n" or "\text4\n": the name follows a tab and ends the line.
  return contains(listed, "\t" + std::string(fs_type) + "\n");
}

}  // namespace

std::string output_excerpt(const spawn::Result& process) {
  std::string_view text = process.err.data;
  if (trim(text).empty()) text = process.out.data;
  std::string cleaned = trim(text);
  if (cleaned.empty()) return {};
  // The last few lines carry the error; Ceph tools print config noise first.
  size_t start = cleaned.size();
  for (size_t lines = 0; lines < kExcerptLines && start > 0;) {
    size_t nl = cleaned.rfind('\n', start - 1);
    size_t line_start = nl == std::string::npos ? 0 : nl + 1;
    if (!trim(std::string_view(cleaned).substr(line_start, start - line_start)).empty()) ++lines;
    start = nl == std::string::npos ? 0 : nl;
  }
  std::string excerpt = trim(std::string_view(cleaned).substr(start));
  // Collapse the blank lines Ceph's logging leaves between entries.
  std::string compact;
  for (size_t pos = 0; pos < excerpt.size();) {
    size_t nl = excerpt.find('\n', pos);
    std::string line = trim(std::string_view(excerpt).substr(
        pos, nl == std::string::npos ? std::string::npos : nl - pos));
    if (!line.empty()) {
      if (!compact.empty()) compact += '\n';
      compact += line;
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  std::string line = one_line(redact(compact));
  if (line.size() > kExcerptChars) line = "..." + line.substr(line.size() - kExcerptChars);
  return line;
}

void classify(OperationResult& result, std::string_view what, std::string_view program) {
  const spawn::Outcome& o = result.process.outcome;
  std::string hint;
  switch (o.kind) {
    case spawn::Outcome::Kind::exited:
      if (o.exit_code == 0) {
        result.failure = Failure::none;
        result.message.clear();
        return;
      }
      result.failure = Failure::command_failed;
      break;
    case spawn::Outcome::Kind::signalled:
    case spawn::Outcome::Kind::cancelled:
      result.failure = Failure::signalled;
      break;
    case spawn::Outcome::Kind::status_lost:
      result.failure = Failure::command_failed;
      break;
    case spawn::Outcome::Kind::timed_out:
      result.failure = Failure::timed_out;
      hint =
          "is the Ceph cluster reachable from the target network namespace (routes, "
          "monitor addresses)? netns-exec doctor checks it";
      break;
    case spawn::Outcome::Kind::spawn_failed:
      if (o.stage == spawn::Stage::exec) {
        bool not_found = o.shell_exit_code() == 127;
        result.failure = not_found ? Failure::not_found : Failure::not_executable;
        hint = "is " + std::string(program) + " installed in this container image and in PATH?";
      } else {
        result.failure = Failure::spawn_failed;
        if (o.stage == spawn::Stage::setns)
          hint =
              "is the namespace descriptor still a network namespace this process may enter "
              "(CAP_SYS_ADMIN)?";
      }
      break;
  }
  std::string message = std::string(what) + ": " + std::string(program) + " " + o.describe();
  std::string excerpt = output_excerpt(result.process);
  if (!excerpt.empty()) message += ": " + excerpt;
  if (!hint.empty()) message += "; check: " + hint;
  result.message = redact(message);
}

std::optional<std::string> rbd_support_problem(const Settings& settings) {
  if (::access(settings.sys_bus_rbd.c_str(), F_OK) == 0) return std::nullopt;
  // Not loaded yet is normal on a fresh node: rbd would load it itself, but
  // only after contacting the cluster. Load it first, so a node that cannot
  // fails now, not after the whole timeout.
  std::string why = try_modprobe(settings, "rbd");
  if (::access(settings.sys_bus_rbd.c_str(), F_OK) == 0) return std::nullopt;
  if (why.empty())
    why = settings.modprobe + " rbd succeeded but " + settings.sys_bus_rbd + " is still absent";
  return quote(settings.sys_bus_rbd) + " is absent; " + why;
}

std::optional<std::string> filesystem_support_problem(const Settings& settings,
                                                      std::string_view fs_type) {
  if (filesystem_listed(settings, fs_type)) return std::nullopt;
  std::string why = try_modprobe(settings, fs_type);
  if (filesystem_listed(settings, fs_type)) return std::nullopt;
  if (why.empty())
    why = settings.modprobe + " " + std::string(fs_type) +
          " succeeded but the file system is still not listed";
  return std::string(fs_type) + " is not in " + quote(settings.proc_filesystems) + "; " + why;
}

bool says_rbd_module_missing(std::string_view output) {
  return contains(output, "failed to load rbd kernel module");
}

bool says_filesystem_missing(std::string_view output, std::string_view fs_type) {
  std::string type(fs_type);
  return contains(output, type + " filesystem not supported by the system") ||
         contains(output, "unknown filesystem type '" + type + "'") ||
         contains(output, "failed to load " + type + " kernel module");
}

}  // namespace netns::ceph::detail
