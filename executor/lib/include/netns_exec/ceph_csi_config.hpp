#pragma once
// ceph-csi's cluster config (/etc/ceph-csi-config/config.json) as ceph-csi
// itself reads it: ceph-csi decodes the file with Go's encoding/json into
// []ClusterInfo (api/deploy/kubernetes/csi-config-map.go, read by
// internal/util/csiconfig.go) and uses the first entry whose clusterID
// equals the one asked for. So here, as there:
//   - a key names a field exactly, else case-insensitively by Go's folding
//     ("RBD", "NetNamespaceFilePath", "clusterid", "\u212Aey"-style runes);
//   - a later key for the same field overwrites the earlier value ("rbd"
//     then "Rbd": the second path), and a second object for the same
//     section merges into the first (a key the second does not name keeps
//     the first's value); null leaves a string or a section as it was and
//     clears a list;
//   - a value of the wrong type anywhere in a field ceph-csi knows (a
//     number for "monitors", a string for "rbd", a list for an entry) makes
//     Go's Unmarshal fail, and ceph-csi then uses no cluster of the file:
//     neither do we (Error invalid_argument);
//   - keys ceph-csi does not know are skipped, whatever their value.
// lookup_netns_path(), resolve() and transparent mode all read the file
// through read_ceph_csi_config().
#include <string>
#include <string_view>
#include <vector>

#include "netns/api.h"
#include "netns_exec/source.hpp"

namespace netns::exec {

// One ClusterInfo, the fields netns-exec uses, as the decoder left them.
struct NETNS_EXEC_API CephCsiCluster {
  std::string cluster_id;
  std::vector<std::string> monitors;
  std::string rbd_netns;     // rbd.netNamespaceFilePath
  std::string cephfs_netns;  // cephFS.netNamespaceFilePath
  std::string nfs_netns;     // nfs.netNamespaceFilePath

  [[nodiscard]] const std::string& netns_path(ConfigKind kind) const noexcept;
};

struct NETNS_EXEC_API CephCsiConfig {
  std::vector<CephCsiCluster> clusters;  // in file order; a top-level null is none

  // ceph-csi's readClusterInfo(): the first entry with exactly this ID.
  [[nodiscard]] const CephCsiCluster* find(std::string_view cluster_id) const noexcept;
};

// Decodes `text`; `shown` names the file in errors. Throws
// Error(invalid_argument) wherever Go's json.Unmarshal into []ClusterInfo
// returns an error, naming the entry, the key and what was found.
NETNS_EXEC_API CephCsiConfig decode_ceph_csi_config(std::string_view text,
                                                    const std::string& shown);

// A configuration file's text, opened as every file netns-exec takes
// direction from: not blocking, a regular file, owned by root (or the
// caller) and not writable by others, every directory and symlink on the way
// likewise, at most `limit` bytes. config.json and, for transparent mode,
// a Ceph config file that names the monitors.
NETNS_EXEC_API std::string read_trusted_config(const std::string& path, size_t limit);

// Opens `config` as lookup_netns_path() does (not blocking, a regular file,
// the owner and mode the trust policy wants, at most 4 MiB) and decodes it.
NETNS_EXEC_API CephCsiConfig read_ceph_csi_config(const std::string& config);

// The warning for a cluster whose entry names no holder for `kind`: every
// interface says the same sentence (CLI log line, ResolvedNamespace and
// RunResult::warning, netns_exec_result_warning(), Go's Namespace.Warning).
NETNS_EXEC_API std::string no_holder_path_warning(const std::string& config,
                                                  const std::string& cluster_id, ConfigKind kind);

}  // namespace netns::exec
