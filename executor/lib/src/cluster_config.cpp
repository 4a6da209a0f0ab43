// ceph-csi's cluster config: a JSON array of
//   {"clusterID": "...", "monitors": [...], "rbd": {"netNamespaceFilePath": "..."},
//    "cephFS": {...}, "nfs": {...}}
// opened here and decoded by ceph-csi's own rules (ceph_csi_config.cpp).
// An empty or absent netNamespaceFilePath means "no holder": ceph-csi then
// runs the command in its own namespace, and so do we (the caller is told).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/trust.hpp"
#include "netns/trusted_path.hpp"
#include "netns_exec/ceph_csi_config.hpp"
#include "netns_exec/source.hpp"

namespace netns::exec {

std::string read_trusted_config(const std::string& path, size_t limit) {
  // Root, or the caller itself (a test, a tool run as its own user), may
  // have written it, and every directory and symlink on the way to it
  // (the ConfigMap mount's ..data links included). Then the file that was
  // opened, not the path again.
  trust::Owners owners;
  if (::geteuid() != 0) owners.uids.push_back(::geteuid());
  UniqueFd fd = trust::open_trusted_regular(path, owners);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error::sys("fstat", path, errno);
  if (trust::Finding f = trust::config_file(st, path, owners); !f.ok) throw f.error();
  return read_all(fd.get(), path, limit);
}

CephCsiConfig read_ceph_csi_config(const std::string& config) {
  std::string text;
  try {
    text = read_trusted_config(config, 4 << 20);
  } catch (Error& e) {
    e.default_hint("is the ceph-csi-config ConfigMap mounted at " + quote(config) +
                   " (or pass --config)?");
    throw;
  }
  return decode_ceph_csi_config(text, config);
}

std::string lookup_netns_path(const std::string& config, const std::string& id, ConfigKind kind) {
  // Before anything is looked up or built from it: the ID becomes a file name.
  validate_cluster_id(id);
  const CephCsiConfig decoded = read_ceph_csi_config(config);
  const CephCsiCluster* cluster = decoded.find(id);
  if (!cluster)
    throw Error(Errc::not_found, "cluster " + quote(id) + " is not in " + quote(config),
                "is the cluster ID spelled as in the ceph-csi-config ConfigMap, and is the "
                "ConfigMap up to date on this node?");
  const std::string& path = cluster->netns_path(kind);
  // ceph-csi's nsenter call cannot carry a NUL either (Go's exec refuses the
  // argument), and a C path would silently end there.
  if (path.find('\0') != std::string::npos)
    throw Error(Errc::invalid_argument,
                "parse " + quote(config) + ": cluster " + quote(id) + ": the " +
                    config_kind_name(kind) + " netNamespaceFilePath contains a NUL byte",
                "is the ceph-csi-config ConfigMap's netNamespaceFilePath a plain path?");
  return path;
}

}  // namespace netns::exec
