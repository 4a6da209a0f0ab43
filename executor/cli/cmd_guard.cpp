// netns-exec guard --wait-idle|--count SOURCE [--max-wait D] [--interval D]
//                  [--log-interval D] [--ports LIST]
// The holder pod's preStop hook: while established Ceph sessions exist in the
// namespace, log them (kubectl logs) and wait, up to --max-wait.
// Exit: 0 idle; 124 still busy at --max-wait; 125 bad source.
#include <fcntl.h>

#include <cstdio>

#include "command.hpp"
#include "log.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns_exec/guard.hpp"
#include "source_options.hpp"

namespace netns::cli {

namespace {

std::string sessions_text(const std::vector<inspect::PeerSessions>& groups) {
  std::string out;
  size_t total = 0;
  for (const auto& g : groups) {
    total += g.established;
    out += (out.empty() ? "" : ", ") + g.peer.str() + " x" + std::to_string(g.established);
  }
  return std::to_string(total) + " established Ceph session" + (total == 1 ? "" : "s") + ": " + out;
}

class GuardCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "guard"; }
  [[nodiscard]] const char* description() const override {
    return "preStop guard: wait until no Ceph session is left in the namespace";
  }

  void setup(CLI::App& app) override {
    source_.add_to(app);
    auto* wait = app.add_flag("--wait-idle", wait_idle_,
                              "Wait (up to --max-wait) until no established Ceph session is left");
    auto* count = app.add_flag("--count", count_, "Print the number of established Ceph sessions");
    wait->excludes(count);
    app.add_option("--max-wait", max_wait_, "Give up after this long: exit 124")
        ->capture_default_str();
    app.add_option("--interval", interval_, "How often sessions are re-checked")
        ->capture_default_str();
    app.add_option("--log-interval", log_interval_, "How often open sessions are logged")
        ->capture_default_str();
    app.add_option("--ports", ports_, "Ceph ports and ranges (peer ports that count)")
        ->capture_default_str();
  }

  int run() override {
    if (wait_idle_ == count_)
      throw Error(Errc::invalid_argument, "guard: give exactly one of --wait-idle or --count");
    inspect::GuardOptions options;
    options.ports.mon = inspect::parse_port_ranges(ports_, "--ports");
    options.ports.osd.clear();
    options.max_wait = parse_duration(max_wait_, "--max-wait");
    options.check_interval = parse_duration(interval_, "--interval");
    options.log_interval = parse_duration(log_interval_, "--log-interval");
    if (options.check_interval.count() == 0)
      throw Error(Errc::invalid_argument, "--interval must be more than 0");

    exec::ResolvedNamespace ns = resolve_source(source_);
    std::string shown = ns.path.empty() ? "own namespace" : ns.path;
    UniqueFd fd = ns.fd ? std::move(ns.fd) : open_fd("/proc/thread-self/ns/net", O_RDONLY);

    if (count_) {
      std::printf("%zu\n", inspect::count_sessions(fd.get(), shown, options.ports));
      return std::fflush(stdout) == 0 ? 0 : 1;
    }
    auto result = inspect::wait_idle(
        fd.get(), shown, options, [&](const auto& groups, std::chrono::nanoseconds waited) {
          // warn, not info: it is what the operator must see at the default level.
          log_warn("guard: waited " + format_duration(waited) + " of " +
                   format_duration(options.max_wait) + "; " + sessions_text(groups));
        });
    if (result.outcome == inspect::GuardOutcome::timed_out) {
      log_error("guard: gave up after " + format_duration(result.waited) + " with " +
               std::to_string(result.sessions) +
               " Ceph sessions still established in " + shown +
               "; deleting the holder now hangs their mappings");
      return kExitTimeout;
    }
    log_info("guard: no established Ceph session in " + shown + " (after " +
             format_duration(result.waited) + ")");
    return 0;
  }

 private:
  SourceOptions source_;
  bool wait_idle_ = false;
  bool count_ = false;
  std::string max_wait_ = "5m";
  std::string interval_ = "250ms";
  std::string log_interval_ = "10s";
  std::string ports_ = "3300,6789,6800-7568";
};

}  // namespace
}  // namespace netns::cli

using netns::cli::GuardCommand;
NETNS_CLI_REGISTER(GuardCommand)
