#pragma once
// Transparent mode's one decision: for a Ceph command as the plugin runs it
// (`rbd -m MONS ...`, `mount.ceph MONS:/ TARGET -o ...`), which cluster of
// ceph-csi's config.json its monitors belong to, whether that cluster is
// held, and which holder file to open. Policy only: the file is then opened
// and checked by exec::resolve(), the one path every form takes.
//
// Environment (the plugin container's; the chart renders it):
//   NETNS_EXEC_CONFIG          ceph-csi's config.json (default /etc/ceph-csi-config/config.json)
//   NETNS_EXEC_HELD_CLUSTERS   comma-separated cluster IDs that have holders; unset: every
//                              cluster in the config; set and empty: none
//   NETNS_EXEC_HOLDER_DIR      where <clusterID>.net.ns / .net.sock are (default: the
//                              driver's plugin directory, see default_holder_dir)
// A cluster whose config entry has a netNamespaceFilePath for the driver's
// kind uses that path (the hook ceph-csi itself reads wins).
//
// `nvme` and `mount.nfs` (and `mount.nfs4`) have no config.json: their
// holders are declared by NETNS_EXEC_TARGETS (see targets.hpp), which alone
// says what is held for them (NETNS_EXEC_HELD_CLUSTERS and the config are
// not read). From there the path is the same: the holder's file in
// NETNS_EXEC_HOLDER_DIR, opened and checked by resolve().
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns_exec/shim/monitors.hpp"
#include "netns_exec/shim/targets.hpp"
#include "netns_exec/source.hpp"

namespace netns::exec::shim {

// The programs netns-exec stands in for, by argv[0]'s basename.
// mount_nfs stands for mount.nfs and mount.nfs4 (the real program is the
// one of the name invoked). umount_nfs stands for umount.nfs and
// umount.nfs4, which nfs-utils installs as links to mount.nfs: a shim put in
// mount.nfs's place is theirs too, so it must run them, and never routes
// them (an unmount names no server, and NFSv4's is umount2(2) alone).
enum class Tool { rbd, mount_ceph, nvme, mount_nfs, umount_nfs };
std::optional<Tool> tool_named(std::string_view basename);
const char* tool_name(Tool tool) noexcept;  // "rbd", "mount.ceph", "nvme", "mount.nfs", ...
// Whether the tool's clusters come from ceph-csi's config.json (rbd,
// mount.ceph) or from NETNS_EXEC_TARGETS (nvme, mount.nfs).
bool routes_by_monitors(Tool tool) noexcept;
// /var/lib/kubelet/plugins/{rbd,cephfs,nvmeof,nfs}.csi.ceph.com
const char* default_holder_dir(Tool tool) noexcept;

struct Environment {
  std::string config = kDefaultCephCsiConfig;
  std::optional<std::vector<std::string>> held;  // nullopt: every cluster in the config
  std::string holder_dir;
  // NETNS_EXEC_TARGETS (nvme, mount.nfs); nullopt when unset: none declared.
  std::optional<std::vector<DeclaredHolder>> targets;
  // From the process environment for `tool`. Throws Error(invalid_argument)
  // naming NETNS_EXEC_HELD_CLUSTERS (or NETNS_EXEC_TARGETS) for an ID that
  // is not a valid cluster ID or an entry that cannot be read.
  static Environment from_process(Tool tool);
};

struct Route {
  // What the command named: its monitors (rbd, mount.ceph) or its target
  // address (nvme, mount.nfs; one endpoint, no ports), and what to call it.
  NamedMonitors monitors;
  const char* named = "monitors";  // "monitors" or "target"
  std::string cluster_id;          // the config entry / declared holder matched ("" if none)
  std::vector<std::string> also;   // other entries with the same monitors
  bool held = false;               // true: run inside cluster_id's holder
  std::string why;                 // one sentence: why routed or passed through
  std::optional<Source> source;    // held: what resolve() opens
  std::string holder_path;         // held: the file (config path, .net.sock or .net.ns)
};

// The decision for `args` (argv without argv[0]) of `tool`. A command that
// names no monitors (no target) is passed through without the config being read. Throws
// Error when the monitors are named but the config cannot be read or parsed:
// then nobody can tell whether the cluster is held, and a held cluster must
// never be served from the plugin's own namespace.
Route route(Tool tool, const std::vector<std::string>& args, const Environment& env);

}  // namespace netns::exec::shim
