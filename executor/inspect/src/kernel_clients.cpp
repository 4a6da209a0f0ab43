#include "netns_exec/inspect/kernel_clients.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::inspect {

namespace {

// The entries of a directory, sorted; nullopt when it does not exist.
std::optional<std::vector<std::string>> list_dir(const std::string& path, std::string* note) {
  std::optional<UniqueFd> fd;
  try {
    fd = open_at_if_exists(AT_FDCWD, path, O_RDONLY | O_DIRECTORY, path);
  } catch (const Error& e) {
    *note = e.describe();
    return std::nullopt;
  }
  if (!fd) return std::nullopt;
  DIR* d = ::fdopendir(fd->get());
  if (!d) {
    *note = Error::sys("fdopendir", path, errno).describe();
    return std::nullopt;
  }
  (void)fd->release();  // the DIR owns it now
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// A sysfs/debugfs attribute without its trailing newline; "" when absent.
std::string attribute(const std::string& path) {
  try {
    std::string text = read_file(path, 64 * 1024);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  } catch (const Error&) {
    return {};
  }
}

// inet_ntop's form of an address, so "2001:DB8::0:5" and "2001:db8::5" agree.
std::string canonical_ip(std::string_view text) {
  std::string s(text);
  unsigned char buf[16];
  char out[INET6_ADDRSTRLEN];
  if (::inet_pton(AF_INET, s.c_str(), buf) == 1) return ::inet_ntop(AF_INET, buf, out, sizeof out);
  if (::inet_pton(AF_INET6, s.c_str(), buf) == 1)
    return ::inet_ntop(AF_INET6, buf, out, sizeof out);
  return {};
}

// The IP of "IP:PORT" / "[IP]:PORT" (a monitor address); "" when not one.
std::string host_port_ip(std::string_view text) {
  if (auto v = text.find("v2:"); v == 0) text.remove_prefix(3);
  if (auto v = text.find("v1:"); v == 0) text.remove_prefix(3);
  if (!text.empty() && text[0] == '[') {
    auto close = text.find(']');
    return close == std::string_view::npos ? std::string()
                                           : canonical_ip(text.substr(1, close - 1));
  }
  auto colon = text.rfind(':');
  return canonical_ip(colon == std::string_view::npos ? text : text.substr(0, colon));
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    auto octal = [&](size_t k) { return field[k] >= '0' && field[k] <= '7'; };
    if (field[i] == '\\' && i + 3 < field.size() && octal(i + 1) && octal(i + 2) && octal(i + 3)) {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += field[i];
  }
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

void read_rbd(const KernelRoots& roots, KernelClients& out) {
  std::string note;
  const std::string devices = roots.sys_bus_rbd + "/devices";
  auto ids = list_dir(devices, &note);
  if (!ids) {
    out.notes.push_back(
        note.empty() ? quote(devices) + " does not exist: no rbd module loaded, so no rbd mapping"
                     : note);
    return;
  }
  for (const auto& id : *ids) {
    const std::string dir = devices + "/" + id + "/";
    RbdMapping m;
    m.id = id;
    m.device = "/dev/rbd" + id;
    std::string pool = attribute(dir + "pool"), ns = attribute(dir + "pool_ns"),
                name = attribute(dir + "name"), snap = attribute(dir + "current_snap");
    m.image = pool + (ns.empty() ? "" : "/" + ns) + "/" + name +
              (snap.empty() || snap == "-" ? "" : "@" + snap);
    m.client = attribute(dir + "client_id");
    m.client_addr = attribute(dir + "client_addr");
    m.ip = entity_addr_ip(m.client_addr);
    if (m.client_addr.empty())
      m.problem = quote(dir + "client_addr") + " cannot be read (a kernel older than 5.4 has none)";
    else if (m.ip.empty())
      m.problem = quote(dir + "client_addr") + " says " + quote(m.client_addr) + ", not an address";
    out.rbd.push_back(std::move(m));
  }
}

void read_debugfs(const KernelRoots& roots, KernelClients& out) {
  std::string note;
  auto dirs = list_dir(roots.ceph_debugfs, &note);
  if (!dirs) {
    out.notes.push_back(note.empty() ? quote(roots.ceph_debugfs) +
                                           " does not exist (debugfs not mounted, or no ceph "
                                           "module): the clients of ceph mounts cannot be read"
                                     : note);
    return;
  }
  out.debugfs_readable = true;
  for (const auto& name : *dirs) {
    const std::string dir = roots.ceph_debugfs + "/" + name + "/";
    std::string status = attribute(dir + "status");
    if (status.empty()) continue;  // an rbd client (or unreadable): not a mount's
    CephClient c;
    c.dir = name;
    c.fsid = name.substr(0, name.find('.'));
    for (auto line : split(status, '\n')) {
      if (line.substr(0, 10) != "instance: ") continue;
      auto words = split(line.substr(10), ' ');
      if (words.size() >= 2) {
        c.instance = std::string(words[0]);
        c.client_addr = std::string(words[1]);
        c.ip = entity_addr_ip(words[1]);
      }
    }
    const std::string monmap = attribute(dir + "monmap");  // the views below point into it
    for (auto line : split(monmap, '\n')) {
      auto words = split(line, '\t');
      if (words.size() == 2 && words[0].substr(0, 3) == "mon")
        if (std::string ip = host_port_ip(words[1]); !ip.empty()) c.monitor_ips.push_back(ip);
    }
    out.cephfs_clients.push_back(std::move(c));
  }
}

// The clients of the mount's cluster: by the fsid its source or options
// name, else by a monitor address its source or mon_addr= names.
std::vector<std::string> clients_of_mount(std::string_view source, std::string_view options,
                                          const std::vector<CephClient>& clients) {
  std::string fsid;
  if (auto at = source.find('@'); at != std::string_view::npos) {  // user@FSID.fs=/path
    auto rest = source.substr(at + 1);
    fsid = std::string(rest.substr(0, rest.find('.')));
  }
  std::vector<std::string> mon_ips;
  for (auto opt : split(options, ',')) {
    if (opt.substr(0, 5) == "fsid=") fsid = std::string(opt.substr(5));
    if (opt.substr(0, 9) == "mon_addr=")
      for (auto m : split(opt.substr(9), '/')) mon_ips.push_back(host_port_ip(m));
  }
  if (fsid.empty()) {
    // "198.18.0.1:6789,198.18.0.2:6789:/path": the monitors precede ":/".
    auto path = source.find(":/");
    for (auto m : split(source.substr(0, path), ',')) mon_ips.push_back(host_port_ip(m));
  }
  std::vector<std::string> out;
  for (const auto& c : clients) {
    bool match = !fsid.empty() && c.fsid == fsid;
    for (const auto& ip : mon_ips)
      match = match || (!ip.empty() && std::find(c.monitor_ips.begin(), c.monitor_ips.end(), ip) !=
                                           c.monitor_ips.end());
    if (match) out.push_back(c.dir);
  }
  return out;
}

void read_mounts(const KernelRoots& roots, KernelClients& out) {
  std::string text;
  try {
    text = read_file(roots.mountinfo, 16 << 20);
  } catch (const Error& e) {
    out.notes.push_back(e.describe());
    return;
  }
  for (auto line : split(text, '\n')) {
    auto dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    auto left = split(line.substr(0, dash), ' ');
    auto right = split(line.substr(dash + 3), ' ');
    if (left.size() < 5 || right.size() < 2 || right[0] != "ceph") continue;
    CephMount m;
    m.mount_point = unescape(left[4]);
    m.source = unescape(right[1]);
    m.clients = clients_of_mount(m.source, right.size() > 2 ? right[2] : "", out.cephfs_clients);
    out.mounts.push_back(std::move(m));
  }
}

const ServingNamespace* serving_ip(const std::string& ip,
                                   const std::vector<ServingNamespace>& serving) {
  for (const auto& s : serving)
    for (const auto& a : s.addresses)
      if (canonical_ip(a.address) == ip) return &s;
  return nullptr;
}

// What doctor can see is that no live holder has the address; not whether
// the namespace is gone (its I/O hangs) or lives on with the pod's sandbox
// while the holder container restarts (its I/O goes on: measured,
// kernel.fault.holder_death.krbd.holder). Both are said.
constexpr const char* kOrphaned =
    "no live holder (and not the node) has its client address: its namespace is gone (then "
    "this mapping hangs) or its holder is down (a holder container restarting: the namespace "
    "lives on with the pod's sandbox, and so does the mapping, until that sandbox goes)";

}  // namespace

std::string entity_addr_ip(std::string_view text) {
  return host_port_ip(text.substr(0, text.find('/')));
}

KernelClients read_kernel_clients(const KernelRoots& roots) {
  KernelClients out;
  read_rbd(roots, out);
  read_debugfs(roots, out);
  read_mounts(roots, out);
  return out;
}

std::vector<MappingVerdict> judge_mappings(const KernelClients& clients,
                                           const std::vector<ServingNamespace>& serving) {
  std::vector<MappingVerdict> out;
  for (const auto& m : clients.rbd) {
    MappingVerdict v{"rbd", m.device, m.image, m.ip, std::nullopt, false, {}};
    if (m.ip.empty()) {
      v.meaning = "cannot tell: " + m.problem;
    } else if (const auto* s = serving_ip(m.ip, serving)) {
      v.served_by = s->what;
      v.meaning = "served by " + s->what;
    } else {
      v.orphaned = true;
      v.meaning = kOrphaned;
    }
    out.push_back(std::move(v));
  }
  for (const auto& m : clients.mounts) {
    MappingVerdict v{"cephfs", m.mount_point, m.source, {}, std::nullopt, false, {}};
    std::vector<const CephClient*> mine;
    for (const auto& c : clients.cephfs_clients)
      if (std::find(m.clients.begin(), m.clients.end(), c.dir) != m.clients.end())
        mine.push_back(&c);
    if (!clients.debugfs_readable) {
      v.meaning = "cannot tell: the kernel's ceph clients (debugfs) cannot be read here";
    } else if (mine.empty()) {
      v.meaning = "cannot tell: no CephFS client in debugfs matches this mount's cluster";
    } else {
      std::vector<std::string> unserved;
      const ServingNamespace* any = nullptr;
      for (const auto* c : mine) {
        const auto* s = c->ip.empty() ? nullptr : serving_ip(c->ip, serving);
        if (s)
          any = s;
        else
          unserved.push_back(c->ip.empty() ? c->instance + " (address unknown)" : c->ip);
      }
      v.address = mine.size() == 1 ? mine[0]->ip : std::string();
      if (unserved.empty()) {
        v.served_by = any->what;
        v.meaning = "served by " + any->what;
      } else if (any) {
        v.meaning =
            "cannot tell: this cluster has several CephFS clients and not all are served (" +
            std::to_string(unserved.size()) +
            " unserved); the kernel does not say which one this mount uses";
      } else {
        v.orphaned = true;
        if (v.address.empty()) v.address = unserved.front();
        v.meaning = kOrphaned;
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

nlohmann::ordered_json mappings_json(const std::vector<MappingVerdict>& verdicts) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& v : verdicts)
    a.push_back({{"kind", v.kind},
                 {"object", v.object},
                 {"image", v.image},
                 {"address",
                  v.address.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(v.address)},
                 {"served_by",
                  v.served_by ? nlohmann::ordered_json(*v.served_by) : nlohmann::ordered_json()},
                 {"orphaned", v.orphaned},
                 {"meaning", v.meaning}});
  return a;
}

}  // namespace netns::inspect
