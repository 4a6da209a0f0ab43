#include "lookup.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::ceph::detail {

std::optional<std::string> attribute(const std::filesystem::path& dir, const char* name) {
  try {
    std::string value = read_file(dir / name, 4096);
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
    return value;
  } catch (const Error&) {
    return std::nullopt;
  }
}

namespace {

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

// The hosts of a monitor list as rbd, mount.ceph and the kernel write it:
// "a:6789,b:6789", "v1:a:6789", "[v2:a:3300,v1:a:6789]", "[fe80::1]:6789".
// Ports are dropped: the kernel keeps the v1 or v2 address its mode chose,
// which need not be the one the request named.
std::vector<std::string> monitor_hosts(std::string_view list) {
  std::vector<std::string> hosts;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(", ", start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view a = list.substr(start, end - start);
    start = end + 1;
    while (!a.empty() && a.front() == '[' && a.size() > 1 && a[1] == 'v') a.remove_prefix(1);
    if (a.substr(0, 3) == "v1:" || a.substr(0, 3) == "v2:") a.remove_prefix(3);
    if (!a.empty() && a.back() == ']' && a.find('[') == std::string_view::npos) a.remove_suffix(1);
    if (size_t colon = a.rfind(':');
        colon != std::string_view::npos && colon + 1 < a.size() &&
        a.find_first_not_of("0123456789", colon + 1) == std::string_view::npos)
      a = a.substr(0, colon);
    if (!a.empty()) hosts.emplace_back(a);
  }
  return hosts;
}

// A mapping or mount made from `existing` (the kernel's monitor list) is one
// of the requested cluster's: they share a monitor host. A node serves several
// clusters (one holder each), and the same pool/image names exist in each.
bool same_cluster(std::string_view existing, const std::vector<std::string>& requested) {
  std::vector<std::string> have = monitor_hosts(existing);
  for (const std::string& r : requested)
    for (const std::string& host : monitor_hosts(r))
      for (const std::string& h : have)
        if (h == host) return true;
  return false;
}

}  // namespace

std::optional<std::string> mapped_device(const Settings& settings, const MapRequest& request) {
  std::error_code ec;
  std::filesystem::directory_iterator it(std::filesystem::path(settings.sys_bus_rbd) / "devices",
                                         ec);
  if (ec) return std::nullopt;
  const std::string want_snap = request.snapshot.empty() ? "-" : request.snapshot;
  for (const auto& entry : it) {
    const auto& dir = entry.path();
    if (attribute(dir, "pool") != request.pool || attribute(dir, "name") != request.image ||
        attribute(dir, "current_snap").value_or("-") != want_snap ||
        attribute(dir, "pool_ns").value_or("") != request.rados_namespace)
      continue;
    // config_info (root only) is what was written to add_single_major:
    // "<monitors> <options> <pool> <image> <snap>". Unreadable or another
    // cluster's: not ours, so the map runs.
    std::optional<std::string> config = attribute(dir, "config_info");
    if (!config || !same_cluster(config->substr(0, config->find(' ')), request.monitors)) continue;
    return "/dev/rbd" + dir.filename().string();
  }
  return std::nullopt;
}

namespace {

// Calls f(type, source) for each mount at TARGET until it returns true.
template <typename F>
bool any_mount_at(const Settings& settings, const std::string& target, F&& f) {
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
    while (fields >> word && word != "-") {}
    std::string type, source;
    if (word != "-" || !(fields >> type >> source) || unescape(point) != target) continue;
    if (f(type, unescape(source))) return true;
  }
  return false;
}

}  // namespace

bool mounted_as(const Settings& settings, const std::string& target, const std::string& fs_type,
                const std::vector<std::string>& monitors) {
  return any_mount_at(settings, target, [&](const std::string& type, const std::string& source) {
    // SOURCE is "<monitors>:<path>" (the kernel client's own spelling, or
    // "<fsid>.<fs>=<path>" with the new device syntax, which names no
    // monitor: not taken for ours).
    return type == fs_type && same_cluster(source.substr(0, source.rfind(':')), monitors);
  });
}

bool mounted_at(const Settings& settings, const std::string& target,
                std::string_view fs_type_prefix) {
  return any_mount_at(settings, target, [&](const std::string& type, const std::string&) {
    return type.rfind(fs_type_prefix, 0) == 0;
  });
}

}  // namespace netns::ceph::detail

namespace netns::ceph {

std::string nvme_address_field(std::string_view address, std::string_view name) {
  size_t start = 0;
  while (start <= address.size()) {
    size_t end = address.find(',', start);
    if (end == std::string_view::npos) end = address.size();
    std::string_view part = address.substr(start, end - start);
    if (part.size() > name.size() && part.substr(0, name.size()) == name &&
        part[name.size()] == '=')
      return std::string(part.substr(name.size() + 1));
    start = end + 1;
  }
  return {};
}

namespace {

// The same address however it is written ("fd00::1" and "fd00:0::1").
bool same_address(const std::string& a, const std::string& b) {
  unsigned char x[16] = {}, y[16] = {};
  for (int family : {AF_INET, AF_INET6})
    if (::inet_pton(family, a.c_str(), x) == 1 && ::inet_pton(family, b.c_str(), y) == 1)
      return std::equal(std::begin(x), std::end(x), std::begin(y));
  return a == b;
}

}  // namespace

std::optional<std::string> connected_controller(const Settings& settings,
                                                const NvmeConnectRequest& request) {
  std::error_code ec;
  std::filesystem::directory_iterator it(settings.sys_class_nvme, ec);
  if (ec) return std::nullopt;
  for (const auto& entry : it) {
    const auto& dir = entry.path();
    const std::string name = dir.filename().string();
    if (name.rfind("nvme", 0) != 0) continue;
    std::optional<std::string> state = detail::attribute(dir, "state");
    // live and connecting/resetting (the kernel reconnecting within
    // ctrl_loss_tmo) keep the controller; a second connect would fail with
    // "already connected" or make a second path. deleting/dead do not.
    if (!state || (*state != "live" && *state != "connecting" && *state != "resetting")) continue;
    if (detail::attribute(dir, "transport") != request.transport ||
        detail::attribute(dir, "subsysnqn") != request.subsystem_nqn)
      continue;
    const std::string address = detail::attribute(dir, "address").value_or("");
    if (!same_address(nvme_address_field(address, "traddr"), request.traddr) ||
        nvme_address_field(address, "trsvcid") != std::to_string(request.trsvcid))
      continue;
    if (!request.host_nqn.empty() && detail::attribute(dir, "hostnqn") != request.host_nqn)
      continue;
    return "/dev/" + name;
  }
  return std::nullopt;
}

}  // namespace netns::ceph
