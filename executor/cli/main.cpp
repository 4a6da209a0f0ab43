// netns-exec: run commands inside a netns-holder's network namespace.
// The subcommands are listed in command.cpp; the nsenter-compatible form
// and transparent mode are recognised before CLI11 sees the arguments. The one place that logs an
// executor failure and maps it to exit 125.
#include <signal.h>

#include <exception>

#include "command.hpp"
#include "log.hpp"
#include "netns/error.hpp"
#include "nsenter_mode.hpp"
#include "parse_hint.hpp"
#include "shim_mode.hpp"

namespace netns::cli {

namespace {
Globals g_globals;

int cli_main(int argc, char** argv) {
  // First and lean: the nsenter form builds no CLI11 app and no logger
  // unless it fails, and keeps every disposition its caller gave it (it
  // becomes the command).
  // Transparent mode (argv[0] rbd, mount.ceph) likewise: it becomes the real
  // program.
  if (is_shim_invocation(argc, argv)) return shim_main(argc, argv);
  if (is_nsenter_invocation(argc, argv)) return nsenter_main(argc, argv);

  // Every other form waits for a child: an inherited "SIGCHLD ignored" would
  // let the kernel reap it before we read its status.
  ::signal(SIGCHLD, SIG_DFL);
  set_log_secrets(argc, argv);

  CLI::App app{
      "Run commands inside a netns-holder's network namespace.\n"
      "Also: netns-exec --net=PATH [--] CMD ARGS... (nsenter-compatible form)",
      "netns-exec"};
  app.footer(
      "Exit status: the command's own; 124 timed out; 125 refused or failed, nothing ran, with\n"
      "one \"netns-exec: error:\" line on stderr. A command that ran and exited 125 itself\n"
      "keeps its 125 (the in-place forms exec it): that line, run --json's outcome, the C\n"
      "ABI's NETNS_EXEC_OUTCOME_REFUSED and the Go package's ErrRefused tell a refusal apart.\n"
      "126 not executable; 127 not found; 128+N killed by signal N. See netns-exec(1).");
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", std::string("netns-exec ") + NETNS_EXEC_VERSION);
  app.add_option("--log-format", g_globals.log_format, "Log format on stderr: text or json")
      ->capture_default_str();
  app.add_option("--log-level", g_globals.log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str();

  auto commands = make_commands();
  std::vector<std::pair<CLI::App*, Command*>> subs;
  for (auto& command : commands) {
    CLI::App* sub = app.add_subcommand(command->name(), command->description());
    command->setup(*sub);
    subs.emplace_back(sub, command.get());
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    setup_logging("text", "info");
    // A mistyped subcommand or option gets the closest name; CLI11's own text
    // otherwise. "; see": a "--key" at the end of CLI11's text must not make
    // the hint's first word look like its value. The value itself, wherever
    // CLI11 put it, is a known secret (set_log_secrets).
    log_error(describe_parse_error(app, e, argc, argv));
    return kExitExecutorFailed;
  }
  setup_logging(g_globals.log_format, g_globals.log_level);
  for (auto& [sub, command] : subs)
    if (sub->parsed()) {
      set_log_field("subcommand", command->name());
      return command->run();
    }
  return kExitExecutorFailed;
}
}  // namespace

const Globals& globals() { return g_globals; }

}  // namespace netns::cli

int main(int argc, char** argv) {
  using namespace netns::cli;
  try {
    return cli_main(argc, argv);
  } catch (const netns::Error& e) {
    // Also before logging was set up (a bad --log-format): spdlog's own
    // default logger would write to stdout, which belongs to the command.
    ensure_logging();
    log_error(e);
  } catch (const std::exception& e) {
    ensure_logging();
    log_error(e.what());
  }
  return kExitExecutorFailed;
}
