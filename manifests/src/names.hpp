#pragma once
// Names and paths the rendered manifests share, and the validation of every
// value a user passes in. Policy lives here so the holder DaemonSet, the
// plugin patch and the ceph-csi config can never disagree on a path.
#include <string>
#include <string_view>

namespace netns::manifest {

// What a holder serves: one ceph-csi driver type. The config section names are
// ceph-csi's own ("cephFS" with a capital FS).
enum class Kind { rbd, cephfs, nfs };

std::string_view kind_name(Kind kind);       // "rbd", "cephfs", "nfs"
std::string_view config_section(Kind kind);  // "rbd", "cephFS", "nfs"
// Parses "rbd" | "cephfs" | "nfs"; throws Error(invalid_argument).
Kind parse_kind(std::string_view text);
// "rbd.csi.ceph.com", "rook-ceph.rbd.csi.ceph.com" -> rbd, ... ; throws when
// the driver name does not say (pass --kind then).
Kind kind_from_driver(std::string_view driver);
// ceph-csi's default driver name for a kind ("rbd.csi.ceph.com", ...).
std::string_view default_driver(Kind kind);

// A CSI driver name: at most 63 characters of [a-z0-9.-], starting and ending
// with an alphanumeric (the CSI spec's rule). Throws Error(invalid_argument).
void validate_driver(std::string_view driver);
// A Kubernetes namespace or object name part (DNS-1123 label).
void validate_dns_label(std::string_view what, std::string_view value);
// A container image reference: non-empty, no whitespace or quotes.
void validate_image(std::string_view image);
// An absolute path without "..", whitespace or a trailing slash.
void validate_abs_path(std::string_view what, std::string_view path);

// The holder DaemonSet's name, a DNS-1123 label of at most 63 characters:
// "netns-holder-<kind>-<id>" with the ID lower-cased and characters outside
// [a-z0-9-] replaced by '-'. When that loses information (upper case, '.', '_')
// or is too long, a short hash of the exact ID is appended so two clusters can
// never share a name.
std::string holder_name(Kind kind, std::string_view cluster_id);

// Where the holder publishes: <kubelet_dir>/plugins/<driver>. ceph-csi's node
// plugin already mounts <kubelet_dir>/plugins at the same path, so these paths
// mean the same thing on the host, in the holder and in the plugin.
std::string holder_dir(std::string_view kubelet_dir, std::string_view driver);

// The path ceph-csi's netNamespaceFilePath gets: the namespace link in symlink
// mode, the holder socket in socket mode. In socket mode the executor
// connect()s to this path, and a unix socket path holds at most 107 bytes:
// a longer one is refused here, not at the first mount on a node.
std::string net_namespace_file_path(std::string_view kubelet_dir, std::string_view driver,
                                    std::string_view cluster_id, bool socket_mode);

}  // namespace netns::manifest
