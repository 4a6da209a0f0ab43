#include "netns_exec/source.hpp"

#include "netns/error.hpp"

namespace netns::exec {

ConfigKind parse_config_kind(std::string_view text) {
  if (text == "rbd") return ConfigKind::rbd;
  if (text == "cephfs" || text == "cephFS") return ConfigKind::cephfs;
  if (text == "nfs") return ConfigKind::nfs;
  throw Error(Errc::invalid_argument, "--kind " + quote(text) + ": expected rbd, cephfs or nfs");
}

const char* config_kind_name(ConfigKind kind) noexcept {
  switch (kind) {
    case ConfigKind::rbd:
      return "rbd";
    case ConfigKind::cephfs:
      return "cephfs";
    case ConfigKind::nfs:
      return "nfs";
  }
  return "rbd";
}

IdentityPolicy parse_identity_policy(std::string_view text) {
  if (text == "require") return IdentityPolicy::require;
  if (text == "if-present") return IdentityPolicy::if_present;
  if (text == "off") return IdentityPolicy::off;
  throw Error(Errc::invalid_argument,
              "--identity " + quote(text) + ": expected require, if-present or off");
}

const char* identity_policy_name(IdentityPolicy policy) noexcept {
  switch (policy) {
    case IdentityPolicy::require:
      return "require";
    case IdentityPolicy::if_present:
      return "if-present";
    case IdentityPolicy::off:
      return "off";
  }
  return "if-present";
}

Source Source::netns_path(std::string path) {
  Source s;
  s.kind = Kind::path;
  s.path = std::move(path);
  return s;
}

Source Source::cluster(std::string id, std::string config, ConfigKind kind) {
  Source s;
  s.kind = Kind::cluster;
  s.cluster_id = std::move(id);
  s.config = std::move(config);
  s.config_kind = kind;
  return s;
}

Source Source::socket(std::string path) {
  Source s;
  s.kind = Kind::socket;
  s.path = std::move(path);
  return s;
}

std::string Source::describe() const {
  switch (kind) {
    case Kind::path:
      return "netns " + quote(path);
    case Kind::socket:
      return "socket " + quote(path);
    case Kind::cluster:
      return "cluster " + quote(cluster_id) + " (" + config_kind_name(config_kind) + " in " +
             quote(config) + ")";
  }
  return "?";
}

std::string ResolvedNamespace::describe() const {
  std::string ns = ns_text(id);
  if (own_namespace)
    return "cluster " + quote(cluster_id) +
           " has no netNamespaceFilePath: running in the caller's own network namespace " + ns;
  std::string out = ns + " from " + quote(path);
  if (!cluster_id.empty()) out += " for cluster " + quote(cluster_id);
  if (record)
    out += ", holder pid " + std::to_string(record->pid) + " verified";
  else
    out += ", no holder record checked";
  return out;
}

}  // namespace netns::exec
