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
  if (basename == "nvme") return Tool::nvme;
  if (basename == "mount.nfs" || basename == "mount.nfs4") return Tool::mount_nfs;
  if (basename == "umount.nfs" || basename == "umount.nfs4") return Tool::umount_nfs;
  return std::nullopt;
}

const char* tool_name(Tool tool) noexcept {
  switch (tool) {
    case Tool::rbd:
      return "rbd";
    case Tool::mount_ceph:
      return "mount.ceph";
    case Tool::nvme:
      return "nvme";
    case Tool::mount_nfs:
      return "mount.nfs";
    case Tool::umount_nfs:
      return "umount.nfs";
  }
  return "";
}

bool routes_by_monitors(Tool tool) noexcept {
  return tool == Tool::rbd || tool == Tool::mount_ceph;
}

const char* default_holder_dir(Tool tool) noexcept {
  switch (tool) {
    case Tool::rbd:
      return "/var/lib/kubelet/plugins/rbd.csi.ceph.com";
    case Tool::mount_ceph:
      return "/var/lib/kubelet/plugins/cephfs.csi.ceph.com";
    case Tool::nvme:
      return "/var/lib/kubelet/plugins/nvmeof.csi.ceph.com";
    case Tool::mount_nfs:
    case Tool::umount_nfs:
      return "/var/lib/kubelet/plugins/nfs.csi.ceph.com";
  }
  return "";
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
  if (const char* t = ::getenv(kTargetsVariable)) env.targets = parse_targets(t);
  return env;
}

namespace {

// The held holder's file in the holder directory: its socket when it
// publishes one (that works without hostPID), else its link; a missing file
// is then waited for as NETNS_EXEC_WAIT_HOLDER says.
void use_holder_directory(Route& r, const Environment& env) {
  validate_cluster_id(r.cluster_id);
  const std::string base = env.holder_dir + "/" + r.cluster_id;
  struct stat st {};
  const bool socket = ::lstat((base + ".net.sock").c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
  r.holder_path = base + (socket ? ".net.sock" : ".net.ns");
  r.source = Source::netns_path(r.holder_path);
}

// nvme, mount.nfs: the server the command names against NETNS_EXEC_TARGETS.
Route route_by_target(Tool tool, const std::vector<std::string>& args, const Environment& env) {
  Route r;
  r.named = "target";
  std::optional<NamedTarget> target = tool == Tool::nvme ? nvme_target(args) : nfs_server(args);
  // With holders declared, a connect whose targets come from a file
  // (discovery.conf, -J) might reach one of them from the plugin's own
  // namespace: refused, as a held target never is served from there.
  if (!target && tool == Tool::nvme && env.targets && !env.targets->empty() && nvme_connects(args))
    throw Error(
        Errc::invalid_argument,
        "transparent mode: `nvme " + args[0] +
            "` names no target address (-a/--traddr), "
            "so its targets come from /etc/nvme/discovery.conf or a -J config, and it cannot be "
            "told which holder of " +
            std::string(kTargetsVariable) + " serves them; nothing was run",
        "name the address with -a ADDR, or run it with `netns-exec run --netns HOLDER -- nvme "
        "...`");
  if (!target) {
    r.why = tool == Tool::nvme
                ? "the command names no target address (only connect, connect-all and discover "
                  "open a connection; disconnect and list-subsys work through sysfs from any "
                  "namespace): the real program runs as is"
                : "the command names no server (no SERVER:/EXPORT source): the real program runs "
                  "as is";
    return r;
  }
  r.monitors.text = target->text;
  r.monitors.where = target->where;
  r.monitors.endpoints.push_back(Endpoint{target->host, {}});
  if (!env.targets) {
    r.why = std::string(kTargetsVariable) + " is unset: no holder serves " + quote(target->text) +
            ", the real program runs as is";
    return r;
  }
  std::optional<TargetMatch> match = holder_serving(*env.targets, target->host);
  if (!match) {
    r.why = "no holder in " + std::string(kTargetsVariable) + " serves " + quote(target->text) +
            ": not held, the real program runs as is";
    return r;
  }
  r.cluster_id = match->id;
  r.held = true;
  use_holder_directory(r, env);
  r.why = "holder " + quote(r.cluster_id) + " serves " + quote(target->text) + " (named by " +
          target->where + "; " + kTargetsVariable + " declares " + quote(match->declared) +
          "); it publishes in " + quote(env.holder_dir);
  return r;
}

}  // namespace

Route route(Tool tool, const std::vector<std::string>& args, const Environment& env) {
  if (tool == Tool::umount_nfs) {
    Route r;
    r.named = "target";
    r.why =
        "an unmount names no server and opens no connection the mount needs (NFSv4's is "
        "umount2(2) alone; NFSv3's UMNT call to mountd is advisory): the real program runs as is";
    return r;
  }
  if (!routes_by_monitors(tool)) return route_by_target(tool, args, env);
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
    r.why = quote(env.config) +
            " does not exist and NETNS_EXEC_HELD_CLUSTERS is unset: no "
            "cluster is held, the real program runs as is";
    return r;
  }
  const ConfigKind kind = tool == Tool::rbd ? ConfigKind::rbd : ConfigKind::cephfs;
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
    r.why = "cluster " + quote(r.cluster_id) +
            " is held; its config entry names the holder file (" +
            std::string(config_kind_name(kind)) + " netNamespaceFilePath)";
    return r;
  }
  use_holder_directory(r, env);
  r.why = "cluster " + quote(r.cluster_id) + " is held (monitors " + quote(r.monitors.text) +
          " named by " + r.monitors.where + "); its holder publishes in " + quote(env.holder_dir);
  return r;
}

}  // namespace netns::exec::shim
