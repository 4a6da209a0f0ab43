#pragma once
// The holder DaemonSet for one Ceph cluster and one ceph-csi driver: a pod per
// node whose only job is to keep a network namespace (with the storage
// network) alive and publish it for the node plugin.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "names.hpp"
#include "yaml.hpp"

namespace netns::manifest {

struct HolderOptions {
  std::string cluster_id;
  std::string driver = "rbd.csi.ceph.com";
  std::optional<Kind> kind;  // default: from the driver name
  std::string image;
  std::string ns = "ceph-csi";
  std::string multus;  // k8s.v1.cni.cncf.io/networks value; empty: none
  bool socket = false;
  std::vector<unsigned> allow_uids = {0};  // socket mode: who may ask for the fd
  std::string kubelet_dir = "/var/lib/kubelet";
  std::string name;  // default: holder_name(kind, cluster_id)
  std::chrono::seconds guard_max_wait{300};
  std::vector<std::pair<std::string, std::string>> node_selector;
  std::string priority_class = "system-node-critical";
};

// Paths inside the holder image (manifests/images/Containerfile.holder).
inline constexpr const char* kHolderBinary = "/usr/bin/netns-holder";
inline constexpr const char* kExecBinary = "/usr/bin/netns-exec";

// Validates every field; throws Error(invalid_argument) naming the bad one.
void validate(const HolderOptions& options);

// The DaemonSet. Calls validate() first.
Node holder_daemonset(const HolderOptions& options);

// The netns-holder command line (also used by the probes' check).
std::vector<std::string> holder_command(const HolderOptions& options);
std::vector<std::string> holder_check_command(const HolderOptions& options);
std::vector<std::string> guard_command(const HolderOptions& options);

// The generator command that reproduces this output (for the header comment).
std::string holder_invocation(const HolderOptions& options);

}  // namespace netns::manifest
