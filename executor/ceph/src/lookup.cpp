#include "lookup.hpp"

#include <filesystem>
#include <sstream>
#include <string>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::ceph::detail {

namespace {

std::optional<std::string> attribute(const std::filesystem::path& dir, const char* name) {
  try {
    std::string value = read_file(dir / name, 4096);
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
    return value;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      std::string oct = field.substr(i + 1, 3);
      if (oct.size() == 3 && oct.find_first_not_of("01234567") == std::string::npos) {
        out += static_cast<char>(std::stoi(oct, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

}  // namespace

std::optional<std::string> mapped_device(const Settings& settings, const MapRequest& request) {
  std::error_code ec;
  std::filesystem::directory_iterator it(std::filesystem::path(settings.sys_bus_rbd) / "devices", ec);
  if (ec) return std::nullopt;
  const std::string want_snap = request.snapshot.empty() ? "-" : request.snapshot;
  for (const auto& entry : it) {
    const auto& dir = entry.path();
    if (attribute(dir, "pool") != request.pool || attribute(dir, "name") != request.image ||
        attribute(dir, "current_snap").value_or("-") != want_snap ||
        attribute(dir, "pool_ns").value_or("") != request.rados_namespace)
      continue;
    return "/dev/rbd" + dir.filename().string();
  }
  return std::nullopt;
}

bool mounted_as(const Settings& settings, const std::string& target, const std::string& fs_type) {
  std::string all;
  try {
    all = read_file(settings.proc_mountinfo, 16 << 20);
  } catch (const Error&) {
    return false;
  }
  std::istringstream lines(all);
  for (std::string line; std::getline(lines, line);) {
    // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
    std::istringstream fields(line);
    std::string id, parent, dev, root, point, word;
    if (!(fields >> id >> parent >> dev >> root >> point)) continue;
    while (fields >> word && word != "-") {
    }
    std::string type;
    if (word == "-" && (fields >> type) && type == fs_type && unescape(point) == target) return true;
  }
  return false;
}

}  // namespace netns::ceph::detail
