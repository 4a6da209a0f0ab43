#include "csi_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "names.hpp"
#include "netns/cluster_id.hpp"
#include "netns/error.hpp"

namespace netns::manifest {

namespace {

[[noreturn]] void invalid(std::string message, std::string hint) {
  throw Error(Errc::invalid_argument, std::move(message), std::move(hint));
}

void validate_monitor(std::string_view cluster, std::string_view mon) {
  const bool ok = !mon.empty() && std::all_of(mon.begin(), mon.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f && c != '"' && c != '\\' && c != ',';
  });
  if (!ok) {
    invalid(fmt::format("cluster {}: invalid monitor address {}", quote(cluster), quote(mon)),
            "a monitor is host:port (e.g. 198.18.0.10:6789); separate several with commas");
  }
}

}  // namespace

ClusterSpec parse_cluster_spec(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    invalid(fmt::format("invalid --cluster {}", quote(text)),
            "write ID=MON[,MON...], e.g. ceph-a=198.18.0.10:6789,198.18.0.11:6789");
  }
  ClusterSpec spec;
  spec.id = std::string(text.substr(0, eq));
  validate_cluster_id(spec.id);
  std::string_view rest = text.substr(eq + 1);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view mon = rest.substr(0, comma);
    validate_monitor(spec.id, mon);
    spec.monitors.emplace_back(mon);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
    if (rest.empty()) validate_monitor(spec.id, rest);  // trailing comma
  }
  if (spec.monitors.empty()) {
    invalid(fmt::format("cluster {} has no monitors", quote(spec.id)),
            "write ID=MON[,MON...], e.g. ceph-a=198.18.0.10:6789");
  }
  return spec;
}

void validate(const CsiConfigOptions& o) {
  if (o.clusters.empty()) {
    invalid("no clusters", "pass --cluster ID=MON[,MON...] once per Ceph cluster");
  }
  std::set<std::string> ids;
  for (const auto& c : o.clusters) {
    validate_cluster_id(c.id);
    if (!ids.insert(c.id).second) {
      invalid(fmt::format("cluster {} given twice", quote(c.id)),
              "each Ceph cluster has one entry in ceph-csi's config");
    }
    if (c.monitors.empty()) {
      invalid(fmt::format("cluster {} has no monitors", quote(c.id)), "add its monitor addresses");
    }
    for (const auto& m : c.monitors) validate_monitor(c.id, m);
  }
  if (o.drivers.empty()) invalid("no drivers", "pass --driver rbd.csi.ceph.com (and others)");
  std::set<Kind> kinds;
  for (const auto& d : o.drivers) {
    validate_driver(d);
    if (!kinds.insert(kind_from_driver(d)).second) {
      invalid(fmt::format("two drivers of kind {}", kind_name(kind_from_driver(d))),
              "ceph-csi's config has one netNamespaceFilePath per kind and cluster");
    }
  }
  validate_abs_path("kubelet directory", o.kubelet_dir);
  validate_dns_label("namespace", o.ns);
  validate_dns_label("ConfigMap name", o.name);
}

std::string csi_config_json(const CsiConfigOptions& o) {
  validate(o);
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  for (const auto& c : o.clusters) {
    nlohmann::ordered_json entry;
    entry["clusterID"] = c.id;
    entry["monitors"] = c.monitors;
    for (const auto& d : o.drivers) {
      const Kind kind = kind_from_driver(d);
      entry[std::string(config_section(kind))]["netNamespaceFilePath"] =
          net_namespace_file_path(o.kubelet_dir, d, c.id, o.socket);
    }
    doc.push_back(std::move(entry));
  }
  return doc.dump(2) + "\n";
}

Node csi_config_map(const CsiConfigOptions& o) {
  const std::string json = csi_config_json(o);
  Node meta = Node::map();
  meta.set("name", Node::str(o.name));
  meta.set("namespace", Node::str(o.ns));
  Node data = Node::map();
  data.set("config.json", Node::str(json),
           o.socket ? "netNamespaceFilePath names each holder's socket: the plugin's netns-exec\n"
                      "(installed as nsenter) asks it for the namespace fd."
                    : "netNamespaceFilePath names each holder's <ID>.net.ns link.");
  Node cm = Node::map();
  cm.set("apiVersion", Node::str("v1"));
  cm.set("kind", Node::str("ConfigMap"));
  cm.set("metadata", std::move(meta));
  cm.set("data", std::move(data));
  return cm;
}

std::string config_invocation(const CsiConfigOptions& o) {
  std::string s = "netns-manifest config";
  for (const auto& c : o.clusters) {
    s += fmt::format(" --cluster {}={}", c.id, fmt::join(c.monitors, ","));
  }
  if (o.drivers != CsiConfigOptions{}.drivers) {
    for (const auto& d : o.drivers) s += fmt::format(" --driver {}", d);
  }
  if (o.socket) s += " --socket";
  if (o.kubelet_dir != "/var/lib/kubelet") s += fmt::format(" --kubelet-dir {}", o.kubelet_dir);
  if (o.ns != "ceph-csi") s += fmt::format(" --namespace {}", o.ns);
  if (o.name != "ceph-csi-config") s += fmt::format(" --name {}", o.name);
  return s;
}

}  // namespace netns::manifest
