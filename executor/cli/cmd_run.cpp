// netns-exec run SOURCE [--timeout D] [--json] -- CMD ARGS...
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <set>

#include "command.hpp"
#include "log.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/redact.hpp"
#include "netns_exec/spawn/orphans.hpp"
#include "output_json.hpp"
#include "signals.hpp"
#include "source_options.hpp"

namespace netns::cli {

namespace {

class RunCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "run"; }
  [[nodiscard]] const char* description() const override {
    return "Run a command inside the network namespace SOURCE names";
  }

  void setup(CLI::App& app) override {
    source_.add_to(app);
    app.add_option("--timeout", timeout_,
                   "Kill the command's process group after this long (0: never); exit 124")
        ->capture_default_str();
    app.add_option("--kill-grace", kill_grace_, "Between SIGTERM and SIGKILL on timeout")
        ->capture_default_str();
    app.add_flag("--json", json_,
                 "Capture stdout/stderr and print one JSON object with the outcome");
    app.add_option("--output-limit", output_limit_,
                   "With --json: bytes kept per stream (the tail)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);  // a size_t would take "-5" as 2^64-5
    app.add_option("command", argv_, "-- CMD ARGS...")->required();
  }

  int run() override {
    try {
      return run_checked();
    } catch (const Error& e) {
      if (json_) (void)print_json(error_json(e, argv_));  // 125 either way
      throw;
    }
  }

 private:
  int run_checked() {
    spawn::Command cmd;
    cmd.argv = argv_;
    cmd.timeout = parse_duration(timeout_, "--timeout");
    cmd.kill_grace = parse_duration(kill_grace_, "--kill-grace");
    cmd.output_limit = output_limit_;
    // stdin is the caller's in both modes (a pipe feeding `rbd import -`,
    // a terminal); --json only captures the output.
    cmd.stdin_mode = spawn::InputMode::inherit;
    if (json_) {
      cmd.stdout_mode = spawn::OutputMode::capture;
      cmd.stderr_mode = spawn::OutputMode::capture;
    } else {
      cmd.stdout_mode = spawn::OutputMode::inherit;
      cmd.stderr_mode = spawn::OutputMode::inherit;
    }
    // On a terminal the command stays in our (foreground) process group: in
    // a group of its own it would be stopped by SIGTTIN as soon as it reads
    // the terminal. The terminal's Ctrl-C then reaches it directly, and the
    // engine does not forward that one again (exactly one delivery).
    if (::isatty(STDIN_FILENO) == 1) cmd.group = spawn::ProcessGroup::inherit;
    exec::ResolvedNamespace ns = resolve_source(source_);
    if (ns.own_namespace)
      log_warn(ns.warning.empty() ? ns.describe() : ns.warning + " (" + ns_text(ns.id) + ")");
    else
      log_info("running " + exec::redacted_command_line(argv_) + " in " + ns.describe());

    // Only now: while resolve() waits for a holder, Ctrl-C and SIGTERM must
    // still end us. From here on they are meant for the command.
    set_log_field("step", "run");
    UniqueFd signals = block_forwarded_signals();
    cmd.forward_signal_fd = signals.get();
    spawn::become_subreaper();
    std::set<pid_t> spare = spawn::current_children();
    exec::RunResult r = exec::run_in(ns, std::move(cmd));
    const auto& outcome = r.result.outcome;
    const std::string shown = exec::redacted_command_line(argv_);
    if (outcome.kind == spawn::Outcome::Kind::spawn_failed)
      log_error(shown + ": " + outcome.describe(),
                {{"step", spawn::stage_name(outcome.stage)}, {"errno", outcome.error}});
    else if (outcome.kind == spawn::Outcome::Kind::status_lost)
      log_error(shown + ": " + outcome.describe());
    else if (outcome.kind == spawn::Outcome::Kind::timed_out)
      log_error(shown + ": " + outcome.describe() + " after " + format_duration(r.result.elapsed));
    if (outcome.kind == spawn::Outcome::Kind::timed_out) {
      if (r.result.pid > 0) spare.insert(r.result.pid);  // the command: ended by the timeout itself
      for (const spawn::Orphan& o : spawn::kill_orphans(spare))
        log_error(shown + ": pid " + std::to_string(o.pid) + " (" + o.comm +
                  ") had left the command's process group; " +
                  (o.stuck ? "SIGKILL sent, but it is stuck in the kernel and still there"
                           : "killed with SIGKILL"));
    }
    if (json_) {
      if (int err = print_json(result_json(r, ns, argv_)); err != 0) {
        log_error(shown + ": the command ran (" + outcome.describe() +
                  ") but its JSON result could not be written to stdout: " + errno_text(err) +
                  "; exit " + std::to_string(kExitJsonLost));
        return kExitJsonLost;
      }
    }
    return r.exit_code();
  }

  SourceOptions source_;
  std::string timeout_ = "0s";
  std::string kill_grace_ = "2s";
  size_t output_limit_ = spawn::kDefaultOutputLimit;
  bool json_ = false;
  std::vector<std::string> argv_;
};

}  // namespace

std::unique_ptr<Command> make_run_command() { return std::make_unique<RunCommand>(); }

}  // namespace netns::cli
