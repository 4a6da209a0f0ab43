#include "nsenter_mode.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "command.hpp"
#include "log.hpp"
#include "netns/error.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/redact.hpp"
#include "signals.hpp"

namespace netns::cli {

namespace {

std::string_view basename_of(const char* path) {
  std::string_view p(path);
  auto slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// nsenter spells it --net=FILE or -nFILE (the argument is optional-attached).
std::optional<std::string> net_path_of(std::string_view arg) {
  if (starts_with(arg, "--net=")) return std::string(arg.substr(6));
  if (starts_with(arg, "-n") && arg.size() > 2 && arg[2] != '-') return std::string(arg.substr(2));
  return std::nullopt;
}

}  // namespace

bool is_nsenter_invocation(int argc, char** argv) {
  if (argc >= 1 && basename_of(argv[0]) == "nsenter") return true;
  return argc >= 2 && net_path_of(argv[1]).has_value();
}

int nsenter_main(int argc, char** argv) {
  setup_logging("text", "warn");
  std::optional<std::string> path;
  std::vector<std::string> command;
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view arg(argv[i]);
    if (arg == "--") {
      ++i;
      break;
    }
    if (auto p = net_path_of(arg)) {
      path = *p;
      continue;
    }
    if (starts_with(arg, "-"))
      throw Error(Errc::invalid_argument,
                  "nsenter form: option " + quote(arg) +
                      " is not supported; only --net=PATH is (this is netns-exec, which "
                      "enters the network namespace only)",
                  "use the real nsenter for other namespaces");
    break;
  }
  for (; i < argc; ++i) command.emplace_back(argv[i]);
  if (!path || path->empty())
    throw Error(Errc::invalid_argument, "nsenter form: --net=PATH is required",
                "call it as: nsenter --net=<netNamespaceFilePath> -- CMD ARGS...");
  if (command.empty())
    throw Error(Errc::invalid_argument, "nsenter form: no command given after --net=" +
                                            quote(*path));

  const std::string shown = exec::redacted_command_line(command);
  exec::ResolvedNamespace ns = exec::resolve(exec::Source::netns_path(*path));
  UniqueFd signals = block_forwarded_signals();  // from here on, signals are the command's
  spawn::Command cmd;
  cmd.argv = std::move(command);
  cmd.stdin_mode = spawn::InputMode::inherit;
  cmd.stdout_mode = spawn::OutputMode::inherit;
  cmd.stderr_mode = spawn::OutputMode::inherit;
  cmd.group = spawn::ProcessGroup::inherit;
  cmd.forward_signal_fd = signals.get();
  exec::RunResult r = exec::run_in(ns, std::move(cmd));
  if (r.result.outcome.kind == spawn::Outcome::Kind::spawn_failed)
    log_error(shown + ": " + r.result.outcome.describe());
  return r.exit_code();
}

}  // namespace netns::cli
