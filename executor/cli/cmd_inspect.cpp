// netns-exec inspect SOURCE [--json] [--sockets] [--mon-ports L] [--osd-ports L]
//   [--nvme-ports L] [--nvme-discovery-ports L] [--nfs-ports L] [--holder-gone]
// Shows the namespace's identity, interfaces, addresses, routes and Ceph
// sessions, read from inside it without spawning anything; then every kernel
// rbd mapping and ceph mount on the node and whether a live holder serves it
// (mapping_scan.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "command.hpp"
#include "holder_gone.hpp"
#include "log.hpp"
#include "mapping_scan.hpp"
#include "netns/fd.hpp"
#include "netns_exec/inspect/inspect_report.hpp"
#include "source_options.hpp"

namespace netns::cli {

namespace {

// The descriptor to read: the validated one, or the caller's own namespace
// when ceph-csi's config names no holder (the command would run here).
UniqueFd namespace_fd(exec::ResolvedNamespace& ns) {
  if (ns.fd) return std::move(ns.fd);
  return open_fd("/proc/thread-self/ns/net", O_RDONLY);
}

class InspectCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "inspect"; }
  [[nodiscard]] const char* description() const override {
    return "Show a namespace's identity, interfaces, routes and Ceph sessions";
  }

  void setup(CLI::App& app) override {
    source_.add_to(app);
    app.add_flag("--json", json_, "Print JSON (fields: executor/inspect/JSON.md)");
    app.add_flag("--sockets", all_sockets_, "Also list every TCP and UDP socket");
    app.add_option("--mon-ports", mon_ports_, "Monitor ports and ranges")->capture_default_str();
    app.add_option("--osd-ports", osd_ports_, "OSD/MDS ports and ranges")->capture_default_str();
    app.add_option("--nvme-ports", nvme_ports_, "NVMe/TCP I/O controller ports and ranges")
        ->capture_default_str();
    app.add_option("--nvme-discovery-ports", nvme_discovery_ports_,
                   "NVMe/TCP discovery controller ports and ranges")
        ->capture_default_str();
    app.add_option("--nfs-ports", nfs_ports_, "NFS server ports and ranges")->capture_default_str();
    app.add_flag("--no-owners", no_owners_,
                 "Do not scan /proc to tell kernel sockets from processes' sockets");
    app.add_flag("--holder-gone", holder_gone_,
                 "When the holder is gone (its link dangles, its socket is dead), look into the "
                 "namespace it left through a process still in it (the pod sandbox), found by its "
                 "record; no live holder vouches for what is shown");
    mappings_.add_to(app);
  }

  int run() override {
    inspect::CollectOptions options;
    options.ports.mon = inspect::parse_port_ranges(mon_ports_, "--mon-ports");
    options.ports.osd = inspect::parse_port_ranges(osd_ports_, "--osd-ports");
    options.ports.nvme = inspect::parse_port_ranges(nvme_ports_, "--nvme-ports");
    options.ports.nvme_discovery =
        inspect::parse_port_ranges(nvme_discovery_ports_, "--nvme-discovery-ports");
    options.ports.nfs = inspect::parse_port_ranges(nfs_ports_, "--nfs-ports");
    options.find_owners = !no_owners_;

    if (holder_gone_) {
      // Only when the usual checks refuse: a live holder's namespace is
      // shown as always.
      try {
        exec::ResolvedNamespace ns = resolve_source(source_);
        log_info("--holder-gone: a live holder vouches for this namespace; shown as always");
        return show(ns, options, {});
      } catch (const Error& e) {
        log_warn(std::string("the holder's checks refuse (") + e.what() +
                 "); --holder-gone: looking for the namespace it left");
      }
      GoneHolderNamespace gone = find_gone_holder_namespace(source_);
      const std::string warning = holder_gone_warning(gone);
      log_warn(warning);
      exec::ResolvedNamespace ns;
      ns.fd = std::move(gone.fd);
      ns.id = gone.id;
      ns.path = gone.path;
      ns.cluster_id = gone.cluster_id;
      ns.record = std::move(gone.record);
      return show(ns, options, warning);
    }
    exec::ResolvedNamespace ns = resolve_source(source_);
    // As `run` does: what follows shows the host's (our own) namespace, which
    // is right only if no holder is meant to exist for this cluster and kind.
    if (ns.own_namespace)
      log_warn("cluster " + quote(ns.cluster_id) + " has no netNamespaceFilePath for kind " +
               source_.kind + " in " + quote(source_.config) +
               ": showing the caller's own network namespace net:[" + std::to_string(ns.id.ino) +
               "], where a command would run; if a holder should serve this cluster, check "
               "ceph-csi's config and --kind");
    return show(ns, options, {});
  }

 private:
  // `warning`: the --holder-gone warning, first in every output.
  int show(exec::ResolvedNamespace& ns, inspect::CollectOptions& options,
           const std::string& warning) {
    inspect::Identity identity{ns.path, ns.cluster_id, ns.id, ns.record};
    options.holder = &ns.holder;
    std::string shown = ns.path.empty() ? "own network namespace" : ns.path;
    UniqueFd fd = namespace_fd(ns);
    auto report = inspect::collect_report(fd.get(), shown, std::move(identity), options);

    MappingScan scan = scan_mappings(mappings_);
    std::string out;
    if (json_) {
      auto j = inspect::render_json(report, all_sockets_);
      j["node_mappings"] = mapping_scan_json(scan);
      using Json = decltype(j);
      j["holder_gone"] = warning.empty() ? Json(nullptr) : Json(warning);
      out = j.dump(2) + "\n";
    } else {
      if (!warning.empty()) out = "WARNING: " + warning + "\n\n";
      out += inspect::render_table(report, all_sockets_) + "\nKernel mappings on this node:\n";
      for (const auto& v : scan.verdicts)
        out += std::string(v.orphaned ? "  ORPHANED " : "  ") + v.kind + " " + v.object + " (" +
               v.image + (v.address.empty() ? "" : ", client " + v.address) + "): " + v.meaning +
               "\n";
      if (scan.verdicts.empty()) out += "  none\n";
      for (const auto& n : scan.notes) out += "  note: " + n + "\n";
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  }

  SourceOptions source_;
  MappingScanOptions mappings_;
  bool json_ = false;
  bool all_sockets_ = false;
  bool no_owners_ = false;
  bool holder_gone_ = false;
  std::string mon_ports_ = "3300,6789";
  std::string osd_ports_ = "6800-7568";
  std::string nvme_ports_ = "4420";
  std::string nvme_discovery_ports_ = "8009";
  std::string nfs_ports_ = "2049";
};

}  // namespace

std::unique_ptr<Command> make_inspect_command() { return std::make_unique<InspectCommand>(); }

}  // namespace netns::cli
