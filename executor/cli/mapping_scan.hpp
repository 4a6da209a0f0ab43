#pragma once
// The node-wide part of doctor and inspect: every kernel rbd mapping and ceph
// mount on this node, judged against the namespaces that still serve them
// (each live holder's, by its record's client addresses, and the node's own).
//   [--holder-dir DIR ...] [--node-netns PATH]
//   [--sys-bus-rbd DIR] [--ceph-debugfs DIR] [--mountinfo FILE]
// The last three point at the kernel's files somewhere else: a node-check
// pod that mounts the host's /sys at another path (and the tests' stand-in
// trees, since krbd cannot be loaded on every test machine).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "netns_exec/inspect/doctor.hpp"
#include "netns_exec/inspect/kernel_clients.hpp"

namespace netns::cli {

struct MappingScanOptions {
  std::vector<std::string> holder_dirs;  // empty: ceph-csi's rbd and cephfs directories
  std::string node_netns;                // "": the namespace netns-exec runs in
  inspect::KernelRoots roots;

  // Adds the group "NODE MAPPINGS" to `app`.
  void add_to(CLI::App& app);
};

struct MappingScan {
  std::vector<inspect::MappingVerdict> verdicts;
  std::vector<std::string>
      notes;  // what could not be read, and holders whose addresses are unknown
  [[nodiscard]] size_t orphaned() const;
};

MappingScan scan_mappings(const MappingScanOptions& options);

// doctor's lines: one per mapping (FAIL when orphaned, SKIP when it cannot be
// told), or one line saying there is none.
std::vector<inspect::Check> mapping_checks(const MappingScan& scan);

// inspect --json's "node_mappings": {"mappings": [...], "orphaned": N, "notes": [...]}.
nlohmann::ordered_json mapping_scan_json(const MappingScan& scan);

}  // namespace netns::cli
