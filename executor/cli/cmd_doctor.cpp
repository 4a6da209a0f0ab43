// netns-exec doctor SOURCE [--mon ADDR:PORT ...] [--connect-timeout D] [--json]
//                   [--holder-dir DIR ...] [--node-netns PATH] [kernel roots]
// One line per check, PASS/FAIL/SKIP with a hint under each FAIL (or, with
// --json, one document with an entry per check). With --cluster-id and a
// holder, a "plugin's route to MON" line per monitor from doctor's own
// namespace (the plugin container's). Then one line per kernel
// rbd mapping and ceph mount on the node: FAIL when no live holder (nor the
// node) has its client address, so a node check alerts on stranded
// mappings. Exit 0 when nothing failed, 1 when a check failed (the source
// failing the executor's validation included: that check's line says why,
// once), 125 when doctor could not run (a bad option, a held list naming an
// ID the config lacks).
#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "command.hpp"
#include "mapping_scan.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns_exec/inspect/doctor.hpp"
#include "netns_exec/shim/decision.hpp"
#include "netns_exec/shim/real_program.hpp"
#include "netns_exec/shim/tools.hpp"
#include "source_options.hpp"

namespace netns::cli {

namespace {

using inspect::Check;
using inspect::CheckStatus;

// Transparent mode set up (NETNS_EXEC_HELD_CLUSTERS or NETNS_EXEC_HOLDER_DIR)
// and a cluster checked: for each program of the tool table that serves the
// cluster's driver (`kind`: rbd, mount.ceph, mount.nfs...), which file a call
// really runs (explain's `runs:`). One that is not netns-exec is a FAIL: its
// calls never reach the shim and open their sessions in the plugin's own
// namespace.
std::vector<Check> shim_installation_checks(const SourceOptions& source) {
  std::vector<Check> out;
  if (source.cluster_id.empty() || !exec::shim::Environment::from_process().transparent())
    return out;
  const exec::ConfigKind kind = exec::parse_config_kind(source.kind);
  const char* path = ::getenv("PATH");
  const std::string path_list = path ? path : exec::shim::kDefaultPath;
  const auto self = exec::shim::netns_exec_identities(path_list);
  for (const auto& tool : exec::shim::tools()) {
    if (tool.naming == exec::shim::Naming::nothing || tool.kind != kind) continue;
    for (const auto program : tool.programs) {
      const exec::shim::WhatRuns w = exec::shim::what_runs(program, path_list, self);
      if (w.path.empty()) continue;  // not installed: nothing calls it
      if (w.is_netns_exec)
        out.push_back({"shim " + std::string(program), CheckStatus::pass,
                       quote(w.path) + " (" + w.how + ") is netns-exec", ""});
      else
        out.push_back({"shim " + std::string(program), CheckStatus::fail,
                       quote(w.path) + " (" + w.how +
                           ") is not netns-exec: its calls never reach the shim and open their "
                           "sessions in the plugin's own namespace",
                       "install netns-exec as " + quote(w.path) +
                           " and the real program after it (manifests/images/rootfs.sh does); "
                           "`netns-exec shim explain -- " +
                           std::string(program) + " ...` shows the search"});
    }
  }
  return out;
}

class DoctorCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "doctor"; }
  [[nodiscard]] const char* description() const override {
    return "Check a namespace step by step: file, provenance, holder, interfaces, routes, monitors";
  }

  void setup(CLI::App& app) override {
    source_.add_to(app);
    app.add_option("--mon", mons_,
                   "A monitor ADDR:PORT to check (repeatable); default: the cluster's "
                   "\"monitors\" in the ceph-csi config");
    app.add_option("--connect-timeout", connect_timeout_, "Bound for each TCP connect")
        ->capture_default_str();
    app.add_flag("--json", json_, "One JSON document on stdout: {\"ok\", \"checks\": [...]}");
    mappings_.add_to(app);
  }

  int run() override {
    // Everything the user typed is validated before the first check line.
    std::vector<inspect::Endpoint> monitors;
    for (const auto& m : mons_) monitors.push_back(inspect::Endpoint::parse(m, "--mon"));
    auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
        parse_duration(connect_timeout_, "--connect-timeout"));
    exec::ResolveOptions options = source_.resolve_options();
    std::vector<Check> checks = shim_installation_checks(source_);
    const exec::shim::Decision decision = cluster_decision(source_);
    if (decision.verdict == exec::shim::Verdict::refused) {
      // Transparent mode's declarations do not hold (a held list naming an
      // ID the config lacks): which namespace serves the cluster cannot be
      // told, and that is the finding.
      checks.push_back({"held clusters", CheckStatus::fail, decision.refusal->message(),
                        decision.refusal->hint()});
      const std::vector<Check> node = mapping_checks(scan_mappings(mappings_));
      checks.insert(checks.end(), node.begin(), node.end());
      print(checks);
      return 1;
    }
    const exec::Source source = *decision.source;
    if (source.kind == exec::Source::Kind::cluster &&
        exec::lookup_netns_path(source.config, source.cluster_id, source.config_kind).empty())
      checks.push_back({"holder configured", CheckStatus::fail,
                        "cluster " + quote(source.cluster_id) + " has no netNamespaceFilePath in " +
                            quote(source.config) + ": commands run in the plugin's own namespace",
                        "set netNamespaceFilePath to the holder's <ID>.net.ns"});
    // The same checks resolve() makes, each printed (netns/trust.hpp).
    exec::Inspection inspection = exec::inspect_source(source, options);
    auto found = inspect::checks_from(inspection.findings);
    checks.insert(checks.end(), found.begin(), found.end());
    // Node-wide, whatever the source: a stranded mapping is worth an alert
    // even when this source is broken too.
    std::vector<Check> node = mapping_checks(scan_mappings(mappings_));
    if (inspection.error) {
      // The failing check's line carries the executor's message: once.
      checks.insert(checks.end(), node.begin(), node.end());
      print(checks);
      return 1;
    }
    exec::ResolvedNamespace& ns = inspection.ns;

    if (monitors.empty() && !source_.cluster_id.empty())
      monitors = inspect::monitors_from_config(source_.config, source_.cluster_id);
    const bool elsewhere = static_cast<bool>(ns.fd);
    UniqueFd fd = ns.fd ? std::move(ns.fd) : open_fd("/proc/thread-self/ns/net", O_RDONLY);
    auto inside = inspect::check_inside(fd.get(), ns.path.empty() ? "own namespace" : ns.path,
                                        monitors, timeout);
    checks.insert(checks.end(), inside.begin(), inside.end());
    // A cluster's plugin reaches the monitors itself too (ceph-csi's own
    // RADOS); checked here when the sessions' namespace is another one.
    if (source.kind == exec::Source::Kind::cluster && elsewhere) {
      auto own = inspect::check_plugin_route(monitors);
      checks.insert(checks.end(), own.begin(), own.end());
    }
    checks.insert(checks.end(), node.begin(), node.end());
    print(checks);
    return inspect::all_passed(checks) ? 0 : 1;
  }

 private:
  void print(const std::vector<Check>& checks) const {
    std::string out = json_ ? inspect::checks_json(checks) : inspect::render_checks(checks);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }

  SourceOptions source_;
  MappingScanOptions mappings_;
  std::vector<std::string> mons_;
  std::string connect_timeout_ = "3s";
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_doctor_command() { return std::make_unique<DoctorCommand>(); }

}  // namespace netns::cli
