#include "mapping_scan.hpp"

#include <algorithm>

#include "holder_addresses.hpp"
#include "netns/error.hpp"

namespace netns::cli {

void MappingScanOptions::add_to(CLI::App& app) {
  const char* group = "NODE MAPPINGS";
  app.add_option("--holder-dir", holder_dirs,
                 "A holder directory whose live holders serve mappings (repeatable; default: "
                 "ceph-csi's rbd and cephfs plugin directories)")
      ->group(group);
  app.add_option("--node-netns", node_netns,
                 "The node's network namespace, whose mappings are served too (default: the one "
                 "netns-exec runs in; with hostPID: /proc/1/ns/net)")
      ->group(group);
  app.add_option("--sys-bus-rbd", roots.sys_bus_rbd, "Where the kernel's rbd bus is")
      ->capture_default_str()
      ->group(group);
  app.add_option("--ceph-debugfs", roots.ceph_debugfs, "Where the kernel's ceph debugfs is")
      ->capture_default_str()
      ->group(group);
  app.add_option("--mountinfo", roots.mountinfo, "The mount table to read ceph mounts from")
      ->capture_default_str()
      ->group(group);
}

size_t MappingScan::orphaned() const {
  return static_cast<size_t>(
      std::count_if(verdicts.begin(), verdicts.end(),
                    [](const inspect::MappingVerdict& v) { return v.orphaned; }));
}

MappingScan scan_mappings(const MappingScanOptions& options) {
  MappingScan scan;
  const bool named = !options.holder_dirs.empty();
  std::vector<inspect::ServingNamespace> serving;
  for (const auto& dir : named ? options.holder_dirs : default_holder_dirs()) {
    for (const auto& h : read_holder_dir(dir, named)) {
      if (!h.problem.empty()) {
        scan.notes.push_back(quote(h.record_path) + ": " + h.problem);
        continue;
      }
      // A record whose holder is known dead serves nothing: its namespace
      // lives on only in the mappings made through it.
      if (h.alive == false || !h.addresses) continue;
      serving.push_back({"holder " + quote(h.cluster_id) + " (" + h.record_path + ", pid " +
                             std::to_string(h.pid) + ")",
                         *h.addresses});
    }
  }
  try {
    serving.push_back({options.node_netns.empty()
                           ? std::string("this namespace (netns-exec's)")
                           : "the node's namespace (" + options.node_netns + ")",
                       node_addresses(options.node_netns)});
  } catch (const Error& e) {
    scan.notes.push_back("the node's addresses: " + e.describe());
  }
  inspect::KernelClients clients = inspect::read_kernel_clients(options.roots);
  scan.notes.insert(scan.notes.end(), clients.notes.begin(), clients.notes.end());
  scan.verdicts = inspect::judge_mappings(clients, serving);
  return scan;
}

std::vector<inspect::Check> mapping_checks(const MappingScan& scan) {
  using inspect::CheckStatus;
  std::vector<inspect::Check> out;
  for (const auto& v : scan.verdicts) {
    inspect::Check c;
    c.name = v.kind + " " + v.object;
    c.detail = v.image + (v.address.empty() ? "" : ", client " + v.address) + ": " + v.meaning;
    if (v.orphaned) {
      c.status = CheckStatus::fail;
      c.hint =
          "is the cluster's holder pod restarting? run doctor again once it is ready; "
          "if no holder comes back, the pod using " +
          v.object + " must be moved; then " +
          (v.kind == "rbd" ? "rbd unmap -o force " + v.object + " (its I/O cannot complete)"
                           : "umount -f " + v.object);
    } else {
      c.status = v.served_by ? CheckStatus::pass : CheckStatus::skip;
    }
    out.push_back(std::move(c));
  }
  if (scan.verdicts.empty()) {
    std::string detail = "no kernel rbd mapping or ceph mount on this node";
    for (const auto& n : scan.notes) detail += "; " + n;
    out.push_back({"kernel mappings on this node", CheckStatus::pass, detail, {}});
  } else {
    for (const auto& n : scan.notes)
      out.push_back({"kernel mappings on this node", CheckStatus::skip, n, {}});
  }
  return out;
}

nlohmann::ordered_json mapping_scan_json(const MappingScan& scan) {
  nlohmann::ordered_json j;
  j["mappings"] = inspect::mappings_json(scan.verdicts);
  j["orphaned"] = scan.orphaned();
  j["notes"] = scan.notes;
  return j;
}

}  // namespace netns::cli
