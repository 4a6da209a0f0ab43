#include "netns_exec/shim/route.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns_exec/ceph_csi_config.hpp"

namespace netns::exec::shim {

namespace {

struct ConfigEntry {
  std::string id;
  std::string monitors_text;
  std::vector<Endpoint> monitors;
  std::string netns_path;  // the driver's kind's netNamespaceFilePath ("" for none)
};

Error unreadable_config(const std::string& config, const std::string& why) {
  return Error(Errc::invalid_argument,
               "transparent mode: the command names monitors, and " + quote(config) +
                   " (ceph-csi's config.json) cannot tell whose they are: " + why +
                   "; nothing was run",
               "is the ceph-csi-config ConfigMap mounted there, or NETNS_EXEC_CONFIG set to it?");
}

// The config read once, by ceph-csi's own rules (exec::read_ceph_csi_config:
// the same opening checks and the same decoder as --cluster-id), so the
// monitors and the holder path here are the ones ceph-csi would use. Only
// the first entry of each ID counts (ceph-csi's lookup stops there, so a
// later duplicate's monitors and path are never a volume's); an entry with
// no ID is never asked for.
std::vector<ConfigEntry> read_entries(const std::string& config, ConfigKind kind) {
  CephCsiConfig decoded;
  try {
    decoded = read_ceph_csi_config(config);
  } catch (const Error& e) {
    throw unreadable_config(config, e.what());
  }
  std::vector<ConfigEntry> entries;
  for (const auto& c : decoded.clusters) {
    if (c.cluster_id.empty() || decoded.find(c.cluster_id) != &c) continue;
    ConfigEntry e{c.cluster_id, {}, {}, c.netns_path(kind)};
    for (const auto& s : c.monitors) {
      e.monitors_text += (e.monitors_text.empty() ? "" : ",") + s;
      auto eps = parse_monitors(s);
      e.monitors.insert(e.monitors.end(), eps.begin(), eps.end());
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

bool is_held(const Environment& env, const std::string& id) {
  if (!env.held) return true;
  for (const auto& h : *env.held)
    if (h == id) return true;
  return false;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + quote(s);
  return out;
}

}  // namespace

std::optional<Tool> tool_named(std::string_view basename) {
  if (basename == "rbd") return Tool::rbd;
  if (basename == "mount.ceph") return Tool::mount_ceph;
  return std::nullopt;
}

const char* tool_name(Tool tool) noexcept { return tool == Tool::rbd ? "rbd" : "mount.ceph"; }

ConfigKind config_kind_of(Tool tool) noexcept {
  return tool == Tool::rbd ? ConfigKind::rbd : ConfigKind::cephfs;
}

const char* default_holder_dir(Tool tool) noexcept {
  return tool == Tool::rbd ? "/var/lib/kubelet/plugins/rbd.csi.ceph.com"
                           : "/var/lib/kubelet/plugins/cephfs.csi.ceph.com";
}

Environment Environment::from_process(Tool tool) {
  Environment env;
  if (const char* c = ::getenv("NETNS_EXEC_CONFIG"); c && *c) env.config = c;
  env.holder_dir = default_holder_dir(tool);
  if (const char* d = ::getenv("NETNS_EXEC_HOLDER_DIR"); d && *d) env.holder_dir = d;
  if (const char* h = ::getenv("NETNS_EXEC_HELD_CLUSTERS")) {
    env.held.emplace();
    std::string_view list(h);
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(',', start);
      if (end == std::string_view::npos) end = list.size();
      std::string id(list.substr(start, end - start));
      start = end + 1;
      if (id.empty()) continue;
      try {
        validate_cluster_id(id);
      } catch (Error& e) {
        e.context("environment variable NETNS_EXEC_HELD_CLUSTERS");
        throw;
      }
      env.held->push_back(id);
    }
  }
  return env;
}

Route route(Tool tool, const std::vector<std::string>& args, const Environment& env) {
  Route r;
  r.monitors = tool == Tool::rbd ? rbd_monitors(args) : mount_ceph_monitors(args);
  if (!r.monitors.named()) {
    r.why = "the command names no monitors (no cluster to route by): the real program runs as is";
    return r;
  }

  // No config at all and no list of held clusters: no cluster is known, so
  // none is held (a node plugin always has its config; other uses of `rbd`
  // in the image, with no ceph-csi config, stay untouched). With the list
  // set, the monitors must be told apart: a missing config is a refusal.
  struct stat cst {};
  if (!env.held && ::stat(env.config.c_str(), &cst) != 0 && errno == ENOENT) {
    r.why = quote(env.config) + " does not exist and NETNS_EXEC_HELD_CLUSTERS is unset: no "
            "cluster is held, the real program runs as is";
    return r;
  }
  const ConfigKind kind = config_kind_of(tool);
  const std::vector<ConfigEntry> entries = read_entries(env.config, kind);
  std::vector<std::string> matched;
  for (const auto& e : entries)
    if (share_a_monitor(r.monitors.endpoints, e.monitors)) matched.push_back(e.id);
  if (matched.empty()) {
    r.why = "no cluster in " + quote(env.config) + " has the monitors " + quote(r.monitors.text) +
            ": not a held cluster, the real program runs as is";
    return r;
  }
  // Several IDs with the same monitors are one Ceph cluster under several
  // configurations (a radosNamespace, a subvolumeGroup each): the first
  // held one in config order is the namespace its sessions live in.
  r.cluster_id = matched.front();
  for (const auto& id : matched)
    if (is_held(env, id)) {
      r.cluster_id = id;
      r.held = true;
      break;
    }
  for (const auto& id : matched)
    if (id != r.cluster_id) r.also.push_back(id);
  if (!r.held) {
    r.why = "cluster " + join(matched) + " (monitors " + quote(r.monitors.text) +
            ") is not in NETNS_EXEC_HELD_CLUSTERS: the real program runs as is";
    return r;
  }

  std::string configured;
  for (const auto& e : entries)
    if (e.id == r.cluster_id) configured = e.netns_path;
  if (configured.find('\0') != std::string::npos)
    throw unreadable_config(env.config, "cluster " + quote(r.cluster_id) + "'s " +
                                            config_kind_name(kind) +
                                            " netNamespaceFilePath contains a NUL byte");
  if (!configured.empty()) {
    r.source = Source::cluster(r.cluster_id, env.config, kind);
    r.holder_path = configured;
    r.why = "cluster " + quote(r.cluster_id) + " is held; its config entry names the holder file (" +
            std::string(config_kind_name(kind)) + " netNamespaceFilePath)";
    return r;
  }
  // The holder's socket when it publishes one (it works without hostPID),
  // else its link; a missing file is then waited for as NETNS_EXEC_WAIT_HOLDER says.
  validate_cluster_id(r.cluster_id);
  const std::string base = env.holder_dir + "/" + r.cluster_id;
  struct stat st {};
  const bool socket = ::lstat((base + ".net.sock").c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
  r.holder_path = base + (socket ? ".net.sock" : ".net.ns");
  r.source = Source::netns_path(r.holder_path);
  r.why = "cluster " + quote(r.cluster_id) + " is held (monitors " + quote(r.monitors.text) +
          " named by " + r.monitors.where + "); its holder publishes in " + quote(env.holder_dir);
  return r;
}

}  // namespace netns::exec::shim
