// netns-exec guard --wait-idle|--count SOURCE [--max-wait D] [--interval D]
//                  [--log-interval D] [--ports LIST] [--holder-record PATH]
// netns-exec guard --announce-replacement D SOURCE --holder-record PATH
// The holder pod's preStop hook: while established storage sessions (Ceph,
// NVMe/TCP, NFS: the peer ports of --ports, --nvme-ports, --nfs-ports) exist in the
// namespace, log them and wait, up to --max-wait. With --holder-record the
// lines also go to the holder's stderr, so `kubectl logs` of the holder pod
// shows them (holder_log.hpp), and a replacement announced for that very
// holder (netns/replacement_notice.hpp) is let through at once.
// Exit: 0 idle (or replacement announced); 124 still busy at --max-wait;
// 125 bad source.
#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "command.hpp"
#include "holder_log.hpp"
#include "log.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/join.hpp"
#include "netns/nsfd.hpp"
#include "netns/replacement_notice.hpp"
#include "netns_exec/inspect/guard.hpp"
#include "source_options.hpp"

namespace netns::cli {

namespace {

std::string sessions_text(const std::vector<inspect::PeerSessions>& groups) {
  size_t total = 0;
  for (const auto& g : groups) total += g.established;
  return std::to_string(total) + " established storage session" + (total == 1 ? "" : "s") + ": " +
         join(groups, ", ", [](const inspect::PeerSessions& g) {
           return g.peer.str() + " x" + std::to_string(g.established);
         });
}

uint64_t unix_now() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

class GuardCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "guard"; }
  [[nodiscard]] const char* description() const override {
    return "preStop guard: wait until no storage session (Ceph, NVMe/TCP, NFS) is left in the "
           "namespace";
  }

  void setup(CLI::App& app) override {
    source_.add_to(app);
    auto* wait =
        app.add_flag("--wait-idle", wait_idle_,
                     "Wait (up to --max-wait) until no established storage session is left");
    auto* count =
        app.add_flag("--count", count_,
                     "Print the number of established storage sessions (Ceph, NVMe/TCP, NFS)");
    wait->excludes(count);
    auto* announce = app.add_option(
        "--announce-replacement", announce_,
        "Tell this holder's next preStop guard, within this long, that the container is being "
        "replaced in place (image patch), not deleted: it then does not hold. Needs "
        "--holder-record");
    announce->excludes(wait)->excludes(count);
    app.add_option("--max-wait", max_wait_, "Give up after this long: exit 124")
        ->capture_default_str();
    app.add_option("--interval", interval_, "How often sessions are re-checked")
        ->capture_default_str();
    app.add_option("--log-interval", log_interval_, "How often open sessions are logged")
        ->capture_default_str();
    app.add_option("--ports", ports_, "Ceph ports and ranges (peer ports that count)")
        ->capture_default_str();
    app.add_option("--nvme-ports", nvme_ports_,
                   "NVMe/TCP ports and ranges that count too (I/O and discovery controllers)")
        ->capture_default_str();
    app.add_option("--nfs-ports", nfs_ports_, "NFS server ports and ranges that count too")
        ->capture_default_str();
    app.add_option("--holder-record", holder_record_,
                   "The holder's <ID>.holder.json: also write the guard's lines to that holder's "
                   "stderr (kubectl logs of the holder pod), once the record is checked");
  }

  int run() override {
    if (int(wait_idle_) + int(count_) + int(!announce_.empty()) != 1)
      throw Error(Errc::invalid_argument,
                  "guard: give exactly one of --wait-idle, --count or --announce-replacement");
    inspect::GuardOptions options;
    options.ports.mon = inspect::parse_port_ranges(ports_, "--ports");
    options.ports.osd.clear();
    options.ports.nvme = inspect::parse_port_ranges(nvme_ports_, "--nvme-ports");
    options.ports.nvme_discovery.clear();
    options.ports.nfs = inspect::parse_port_ranges(nfs_ports_, "--nfs-ports");
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
    if (!announce_.empty()) return announce(ns_id_of_fd(fd.get(), shown));
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
      say("preStop: checking for storage sessions in " + shown + " before holder pid " +
          std::to_string(holder_log->pid()) + " stops (max wait " +
          format_duration(options.max_wait) + ")");
    // Only a notice for the live holder just checked counts: without that
    // check the guard holds, as it always did.
    if (holder_log && replacement_announced(*holder_log, say)) {
      std::string text = "in-place replacement announced for holder pid " +
                         std::to_string(holder_log->pid()) + ": not holding; " +
                         std::to_string(inspect::count_sessions(fd.get(), shown, options.ports)) +
                         " established storage sessions stay in " + shown +
                         ", which the pod sandbox keeps";
      log_warn("guard: " + text);
      say(text);
      return 0;
    }
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
                         std::to_string(result.sessions) +
                         " storage sessions still established in " + shown +
                         "; if the pod is being deleted, their mappings hang now; if only this "
                         "container is replaced (image change, liveness restart), the pod "
                         "sandbox keeps the namespace and nothing hangs";
      log_error("guard: " + text);
      say(text);
      return kExitTimeout;
    }
    std::string text = "no established storage session in " + shown + " (after " +
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
  std::string nvme_ports_ = "4420,8009";
  std::string nfs_ports_ = "2049";
  std::string holder_record_;
  std::string announce_;

  int announce(NsId guarded) {
    if (holder_record_.empty())
      throw Error(
          Errc::invalid_argument,
          "guard --announce-replacement needs --holder-record: the notice names one holder");
    auto valid = parse_duration(announce_, "--announce-replacement");
    if (valid < std::chrono::seconds(1) || valid > std::chrono::hours(1))
      throw Error(Errc::invalid_argument, "--announce-replacement " + quote(announce_) +
                                              ": give 1s to 1h (the patch follows at once)");
    HolderLog log = HolderLog::open(holder_record_, guarded);
    ReplacementNotice notice;
    notice.pid = log.record().pid;
    notice.pid_start_time = log.record().pid_start_time;
    notice.until_unix =
        unix_now() + static_cast<uint64_t>(std::chrono::ceil<std::chrono::seconds>(valid).count());
    write_notice(holder_record_, notice);
    std::string text = "in-place replacement announced for holder pid " +
                       std::to_string(notice.pid) + ": its preStop guard within " +
                       format_duration(valid) + " does not hold (" + notice_path(holder_record_) +
                       ")";
    log.line(text);
    std::printf("%s\n", text.c_str());
    return std::fflush(stdout) == 0 ? 0 : 1;
  }

  // A valid notice for `log`'s holder is used (and removed); any other is
  // reported, removed and ignored. A notice that cannot be read is ignored.
  template <typename Say>
  bool replacement_announced(const HolderLog& log, const Say& say) {
    std::optional<ReplacementNotice> notice;
    try {
      notice = read_notice(holder_record_);
    } catch (const Error& e) {
      log_warn("guard: ignoring the replacement notice: " + e.describe());
      say("ignoring the replacement notice: " + e.describe());
      return false;
    }
    if (!notice) return false;
    std::string why;
    if (notice->pid != log.record().pid || notice->pid_start_time != log.record().pid_start_time)
      why = "it was for holder pid " + std::to_string(notice->pid) + ", not this one";
    else if (unix_now() > notice->until_unix)
      why = "it expired " + std::to_string(unix_now() - notice->until_unix) + "s ago";
    try {
      remove_notice(holder_record_);
    } catch (const Error& e) {
      log_warn("guard: " + e.describe());
    }
    if (why.empty()) return true;
    log_warn("guard: ignoring the replacement notice: " + why);
    say("ignoring the replacement notice: " + why);
    return false;
  }
};

}  // namespace

std::unique_ptr<Command> make_guard_command() { return std::make_unique<GuardCommand>(); }

}  // namespace netns::cli
