// ceph-csi's cluster config: a JSON array of
//   {"clusterID": "...", "monitors": [...], "rbd": {"netNamespaceFilePath": "..."},
//    "cephFS": {...}, "nfs": {...}}
// An empty or absent netNamespaceFilePath means "no holder": ceph-csi then
// runs the command in its own namespace, and so do we (the caller is told).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <nlohmann/json.hpp>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/trust.hpp"
#include "netns/trusted_path.hpp"
#include "netns_exec/source.hpp"

namespace netns::exec {

namespace {
const char* config_key(ConfigKind kind) {
  switch (kind) {
    case ConfigKind::rbd: return "rbd";
    case ConfigKind::cephfs: return "cephFS";
    case ConfigKind::nfs: return "nfs";
  }
  return "rbd";
}

Error malformed(const std::string& config, const std::string& why) {
  return Error(Errc::invalid_argument, "parse " + quote(config) + ": " + why,
               "is the ceph-csi-config ConfigMap valid JSON: a list of {\"clusterID\", "
               "\"monitors\", \"rbd\": {\"netNamespaceFilePath\"}, ...}?");
}
}  // namespace

std::string lookup_netns_path(const std::string& config, const std::string& id, ConfigKind kind) {
  // Before anything is looked up or built from it: the ID becomes a file name.
  validate_cluster_id(id);

  std::string text;
  try {
    // Root, or the caller itself (a test, a tool run as its own user), may
    // have written it, and every directory and symlink on the way to it
    // (the ConfigMap mount's ..data links included). Then the file that was
    // opened, not the path again.
    trust::Owners owners;
    if (::geteuid() != 0) owners.uids.push_back(::geteuid());
    UniqueFd fd = trust::open_trusted_regular(config, owners);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw Error::sys("fstat", config, errno);
    if (trust::Finding f = trust::config_file(st, config, owners); !f.ok) throw f.error();
    text = read_all(fd.get(), config, 4 << 20);
  } catch (Error& e) {
    e.default_hint("is the ceph-csi-config ConfigMap mounted at " + quote(config) +
                   " (or pass --config)?");
    throw;
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw malformed(config, e.what());
  }
  if (!doc.is_array()) throw malformed(config, "the top level is not a JSON array");

  for (const auto& entry : doc) {
    if (!entry.is_object()) throw malformed(config, "an entry is not a JSON object");
    auto cid = entry.find("clusterID");
    if (cid == entry.end() || !cid->is_string() || cid->get_ref<const std::string&>() != id)
      continue;
    auto section = entry.find(config_key(kind));
    if (section == entry.end() || section->is_null()) return {};
    if (!section->is_object())
      throw malformed(config, "cluster " + quote(id) + ": \"" + config_key(kind) +
                                  "\" is not an object");
    auto path = section->find("netNamespaceFilePath");
    if (path == section->end() || path->is_null()) return {};
    if (!path->is_string())
      throw malformed(config, "cluster " + quote(id) + ": \"" + config_key(kind) +
                                  ".netNamespaceFilePath\" is not a string");
    return path->get<std::string>();
  }
  throw Error(Errc::not_found, "cluster " + quote(id) + " is not in " + quote(config),
              "is the cluster ID spelled as in the ceph-csi-config ConfigMap, and is the "
              "ConfigMap up to date on this node?");
}

}  // namespace netns::exec
