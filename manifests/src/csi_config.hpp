#pragma once
// ceph-csi's cluster configuration (the "config.json" key of the
// ceph-csi-config ConfigMap) with netNamespaceFilePath set, per cluster and
// per driver kind, to where that cluster's holder publishes.
#include <string>
#include <string_view>
#include <vector>

#include "yaml.hpp"

namespace netns::manifest {

struct ClusterSpec {
  std::string id;
  std::vector<std::string> monitors;
};

struct CsiConfigOptions {
  std::vector<ClusterSpec> clusters;
  std::vector<std::string> drivers = {"rbd.csi.ceph.com", "cephfs.csi.ceph.com"};
  bool socket = false;
  std::string kubelet_dir = "/var/lib/kubelet";
  std::string ns = "ceph-csi";
  std::string name = "ceph-csi-config";
};

// "ID=MON[,MON...]", e.g. "ceph-a=198.18.0.10:6789,198.18.0.11:6789". Throws
// Error(invalid_argument).
ClusterSpec parse_cluster_spec(std::string_view text);

void validate(const CsiConfigOptions& options);

// The JSON array, pretty-printed, keys in ceph-csi's documented order.
std::string csi_config_json(const CsiConfigOptions& options);

// A ConfigMap holding it under "config.json".
Node csi_config_map(const CsiConfigOptions& options);

std::string config_invocation(const CsiConfigOptions& options);

}  // namespace netns::manifest
