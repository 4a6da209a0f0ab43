// netns-exec run SOURCE [--timeout D] [--json] -- CMD ARGS...
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "command.hpp"
#include "log.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/redact.hpp"
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
      if (json_) print_json(error_json(e, argv_));
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
    if (json_) {
      cmd.stdout_mode = spawn::OutputMode::capture;
      cmd.stderr_mode = spawn::OutputMode::capture;
    } else {
      cmd.stdin_mode = spawn::InputMode::inherit;
      cmd.stdout_mode = spawn::OutputMode::inherit;
      cmd.stderr_mode = spawn::OutputMode::inherit;
    }
    exec::ResolvedNamespace ns = resolve_source(source_);
    if (ns.own_namespace)
      log_warn(ns.describe());
    else
      log_info("running " + exec::redacted_command_line(argv_) + " in " + ns.describe());

    // Only now: while resolve() waits for a holder, Ctrl-C and SIGTERM must
    // still end us. From here on they are meant for the command.
    set_log_field("step", "run");
    UniqueFd signals = block_forwarded_signals();
    cmd.forward_signal_fd = signals.get();
    exec::RunResult r = exec::run_in(ns, std::move(cmd));
    const auto& outcome = r.result.outcome;
    if (outcome.kind == spawn::Outcome::Kind::spawn_failed)
      log_error(exec::redacted_command_line(argv_) + ": " + outcome.describe(),
                {{"step", spawn::stage_name(outcome.stage)}, {"errno", outcome.error}});
    else if (outcome.kind == spawn::Outcome::Kind::timed_out)
      log_error(exec::redacted_command_line(argv_) + ": " + outcome.describe() + " after " +
                format_duration(r.result.elapsed));
    if (json_) print_json(result_json(r, ns, argv_));
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

}  // namespace netns::cli

using netns::cli::RunCommand;
NETNS_CLI_REGISTER(RunCommand)
