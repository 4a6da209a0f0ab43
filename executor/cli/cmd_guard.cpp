// netns-exec guard --wait-idle|--count SOURCE [--max-wait D] [--interval D]
//                  [--log-interval D] [--ports LIST] [--holder-record PATH]
// The holder pod's preStop hook: while established Ceph sessions exist in the
// namespace, log them and wait, up to --max-wait. With --holder-record the
// lines also go to the holder's stderr, so `kubectl logs` of the holder pod
// shows them (holder_log.hpp).
// Exit: 0 idle; 124 still busy at --max-wait; 125 bad source.
#include <fcntl.h>

#include <cstdio>
#include <optional>

#include "command.hpp"
#include "holder_log.hpp"
#include "log.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/nsfd.hpp"
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
    app.add_option("--holder-record", holder_record_,
                   "The holder's <ID>.holder.json: also write the guard's lines to that holder's "
                   "stderr (kubectl logs of the holder pod), once the record is checked");
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
    // The guard's work comes first: a record that cannot be used (the holder
    // crashed, its files are stale) costs the mirror, never the guard.
    std::optional<HolderLog> holder_log;
    if (!holder_record_.empty()) {
      try {
        holder_log.emplace(HolderLog::open(holder_record_, ns_id_of_fd(fd.get(), shown)));
      } catch (const Error& e) {
        log_warn("guard: not writing to the holder's log (kubectl logs): " + e.describe());
      }
    }
    auto say = [&](std::string_view text) {
      if (holder_log) holder_log->line(text);
    };
    if (holder_log)
      say("preStop: checking for Ceph sessions in " + shown + " before holder pid " +
          std::to_string(holder_log->pid()) + " stops (max wait " +
          format_duration(options.max_wait) + ")");
    auto result = inspect::wait_idle(
        fd.get(), shown, options, [&](const auto& groups, std::chrono::nanoseconds waited) {
          // warn, not info: it is what the operator must see at the default level.
          std::string text = "holding the stop: waited " + format_duration(waited) + " of " +
                             format_duration(options.max_wait) + "; " + sessions_text(groups);
          log_warn("guard: " + text);
          say(text);
        });
    if (result.outcome == inspect::GuardOutcome::timed_out) {
      std::string text = "gave up after " + format_duration(result.waited) + " with " +
                         std::to_string(result.sessions) + " Ceph sessions still established in " +
                         shown +
                         "; if the pod is being deleted, their mappings hang now; if only this "
                         "container is replaced (image change, liveness restart), the pod "
                         "sandbox keeps the namespace and nothing hangs";
      log_error("guard: " + text);
      say(text);
      return kExitTimeout;
    }
    std::string text = "no established Ceph session in " + shown + " (after " +
                       format_duration(result.waited) + "); the holder may stop";
    log_info("guard: " + text);
    say(text);
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
  std::string holder_record_;
};

}  // namespace
}  // namespace netns::cli

using netns::cli::GuardCommand;
NETNS_CLI_REGISTER(GuardCommand)
