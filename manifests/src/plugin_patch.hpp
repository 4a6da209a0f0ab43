#pragma once
// The changes ceph-csi's node plugin DaemonSet needs to use holders, as a
// strategic-merge patch (kubectl patch --type strategic, or a kustomize
// patch). Only what this project needs is in it; everything else in the
// user's DaemonSet is left as it is.
#include <optional>
#include <string>

#include "names.hpp"
#include "yaml.hpp"

namespace netns::manifest {

struct PluginPatchOptions {
  std::string driver = "rbd.csi.ceph.com";
  std::optional<Kind> kind;  // default: from the driver name
  std::string ns = "ceph-csi";
  std::string daemonset;         // default: ceph-csi's "csi-rbdplugin" / ...
  std::string plugin_container;  // default: the same name as the DaemonSet
  std::string plugin_image;      // empty: keep the image (it must have netns-exec)
  bool host_network = false;     // keep the host network (no Multus for the plugin)
  bool socket = false;           // socket mode: no hostPID
  std::string multus;            // plugin pod's own Ceph traffic (librados calls)
  std::string livenessprobe_image = "registry.k8s.io/sig-storage/livenessprobe:v2.15.0";
  unsigned liveness_port = 9808;
};

void validate(const PluginPatchOptions& options);

// The patch. Calls validate() first.
Node plugin_patch(const PluginPatchOptions& options);

// ceph-csi's default DaemonSet and container names for a kind.
std::string default_plugin_daemonset(Kind kind);

std::string plugin_invocation(const PluginPatchOptions& options);

}  // namespace netns::manifest
