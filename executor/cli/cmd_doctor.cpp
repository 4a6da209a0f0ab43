// netns-exec doctor SOURCE [--mon ADDR:PORT ...] [--connect-timeout D]
// One line per check, PASS/FAIL/SKIP with a hint under each FAIL. Exit 0 when
// nothing failed, 1 when a check failed, 125 when the source fails the
// executor's validation (its message is logged after the check lines).
#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>

#include "command.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns_exec/doctor.hpp"
#include "source_options.hpp"

namespace netns::cli {

namespace {

using inspect::Check;
using inspect::CheckStatus;

void print(const std::vector<Check>& checks) {
  std::string out = inspect::render_checks(checks);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

class DoctorCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "doctor"; }
  [[nodiscard]] const char* description() const override {
    return "Check a namespace step by step: file, holder, interfaces, routes, monitors";
  }

  void setup(CLI::App& app) override {
    source_.add_to(app);
    app.add_option("--mon", mons_,
                   "A monitor ADDR:PORT to check (repeatable); default: the cluster's "
                   "\"monitors\" in the ceph-csi config");
    app.add_option("--connect-timeout", connect_timeout_, "Bound for each TCP connect")
        ->capture_default_str();
  }

  int run() override {
    // Everything the user typed is validated before the first check line.
    std::vector<inspect::Endpoint> monitors;
    for (const auto& m : mons_) monitors.push_back(inspect::Endpoint::parse(m, "--mon"));
    auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
        parse_duration(connect_timeout_, "--connect-timeout"));
    exec::Source source = source_.source();

    std::vector<Check> checks = file_checks(source);
    exec::ResolvedNamespace ns;
    try {
      ns = resolve_source(source_);
    } catch (const Error&) {
      print(checks);  // the lines so far, then main() logs the executor's message: 125
      throw;
    }
    if (source.kind == exec::Source::Kind::socket) add_socket_checks(ns, checks);

    if (monitors.empty() && source.kind == exec::Source::Kind::cluster)
      monitors = inspect::monitors_from_config(source.config, source.cluster_id);
    UniqueFd fd = ns.fd ? std::move(ns.fd) : open_fd("/proc/thread-self/ns/net", O_RDONLY);
    auto inside = inspect::check_inside(fd.get(), ns.path.empty() ? "own namespace" : ns.path,
                                        monitors, timeout);
    checks.insert(checks.end(), inside.begin(), inside.end());
    print(checks);
    return inspect::all_passed(checks) ? 0 : 1;
  }

 private:
  std::vector<Check> file_checks(const exec::Source& source) {
    std::string path = source.path;
    if (source.kind == exec::Source::Kind::cluster) {
      path = exec::lookup_netns_path(source.config, source.cluster_id, source.config_kind);
      if (path.empty())
        return {{"holder configured", CheckStatus::fail,
                 "cluster " + quote(source.cluster_id) + " has no netNamespaceFilePath in " +
                     quote(source.config) + ": commands run in the plugin's own namespace",
                 "set netNamespaceFilePath to the holder's <ID>.net.ns"}};
    }
    if (source.kind == exec::Source::Kind::socket) {
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0)
        return {{"file exists", CheckStatus::fail, quote(path) + ": " + errno_text(errno),
                 "is the netns-holder pod running with --socket on this node?"}};
      return {{"file exists", CheckStatus::pass, quote(path) + " (socket)", {}}};
    }
    return inspect::check_namespace_file(path).checks;
  }

  // With --socket the holder itself answered and resolve() has already
  // checked what it sent (nsfs, type, not ours, header against descriptor).
  static void add_socket_checks(const exec::ResolvedNamespace& ns, std::vector<Check>& checks) {
    std::string id = "net:[" + std::to_string(ns.id.ino) + "]";
    checks.push_back({"is a network namespace", CheckStatus::pass, id + " (from the holder's socket)", {}});
    checks.push_back({"not our own namespace", CheckStatus::pass, "", {}});
    checks.push_back({"holder alive", CheckStatus::pass, "it answered on its socket", {}});
    checks.push_back({"identity matches", CheckStatus::pass,
                      "the header names the namespace it sent, " + id, {}});
  }

  SourceOptions source_;
  std::vector<std::string> mons_;
  std::string connect_timeout_ = "3s";
};

}  // namespace
}  // namespace netns::cli

using netns::cli::DoctorCommand;
NETNS_CLI_REGISTER(DoctorCommand)
