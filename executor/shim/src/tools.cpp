#include "netns_exec/shim/tools.hpp"

#include <algorithm>

#include "netns_exec/shim/targets.hpp"

namespace netns::exec::shim {

namespace {

using Args = std::vector<std::string>;

bool has(const Args& args, std::string_view word) {
  return std::find(args.begin(), args.end(), word) != args.end();
}

bool asks_for_help(const Args& args) { return has(args, "-h") || has(args, "--help"); }

// rbd: `map` and `device map` (krbd; `attach` for a device made elsewhere).
// Any word "map" or "attach" counts, wherever it stands: a pool named "map"
// makes `rbd ls map` a session-opening call too, which only costs it the
// check (over-reading is safe, under-reading is the hang).
bool rbd_opens_session(const Args& args) {
  if (asks_for_help(args)) return false;
  auto first = std::find_if(args.begin(), args.end(),
                            [](const std::string& a) { return a.empty() || a.front() != '-'; });
  if (first != args.end() && *first == "help") return false;
  return has(args, "map") || has(args, "attach");
}

// mount.ceph SOURCE DIR: every call with a source and a mount point mounts.
bool mount_opens_session(const Args& args) {
  if (asks_for_help(args) || has(args, "-V") || has(args, "--version")) return false;
  int words = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" || args[i] == "-t" || args[i] == "-O") {
      ++i;
      continue;
    }
    if (!args[i].empty() && args[i].front() != '-') ++words;
  }
  return words >= 2;
}

bool never(const Args&) { return false; }

Named nothing_named(const Args&, const CephEnvironment&) { return {}; }
Named rbd_names(const Args& args, const CephEnvironment& env) { return rbd_monitors(args, env); }
Named mount_ceph_names(const Args& args, const CephEnvironment& env) {
  return mount_ceph_monitors(args, env);
}
Named nvme_names(const Args& args, const CephEnvironment&) { return nvme_target(args); }
Named nfs_names(const Args& args, const CephEnvironment&) { return nfs_server(args); }

}  // namespace

const std::vector<Tool>& tools() {
  // umount.nfs and umount.nfs4 are nfs-utils' links to mount.nfs: a shim in
  // mount.nfs's place is theirs too, so it must run them, and never routes
  // them (an unmount names no server; NFSv4's is umount2(2) alone, NFSv3's
  // UMNT call to mountd is advisory).
  static const std::vector<Tool> rows{
      {{"rbd"},
       Naming::monitors,
       "cluster",
       "monitors",
       ConfigKind::rbd,
       "/var/lib/kubelet/plugins/rbd.csi.ceph.com",
       "map, device map, attach",
       rbd_opens_session,
       rbd_names},
      {{"mount.ceph"},
       Naming::monitors,
       "cluster",
       "monitors",
       ConfigKind::cephfs,
       "/var/lib/kubelet/plugins/cephfs.csi.ceph.com",
       "every mount",
       mount_opens_session,
       mount_ceph_names},
      {{"nvme"},
       Naming::targets,
       "holder",
       "target",
       std::nullopt,
       "/var/lib/kubelet/plugins/nvmeof.csi.ceph.com",
       "connect, connect-all, discover, dim",
       nvme_connects,
       nvme_names},
      {{"mount.nfs", "mount.nfs4"},
       Naming::targets,
       "holder",
       "target",
       ConfigKind::nfs,
       "/var/lib/kubelet/plugins/nfs.csi.ceph.com",
       "every mount",
       mount_opens_session,
       nfs_names},
      {{"umount.nfs", "umount.nfs4"},
       Naming::nothing,
       "holder",
       "target",
       std::nullopt,
       "/var/lib/kubelet/plugins/nfs.csi.ceph.com",
       "none",
       never,
       nothing_named},
  };
  return rows;
}

const Tool* tool_named(std::string_view basename) {
  for (const Tool& t : tools())
    if (std::find(t.programs.begin(), t.programs.end(), basename) != t.programs.end()) return &t;
  return nullptr;
}

}  // namespace netns::exec::shim
