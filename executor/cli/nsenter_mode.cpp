#include "nsenter_mode.hpp"

#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "environment.hpp"
#include "log.hpp"
#include "netns/error.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/redact.hpp"
#include "netns_exec/spawn.hpp"

#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000
#endif

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

// ceph-csi's call line is fixed (`nsenter --net=PATH -- CMD`), so the one
// trust opt-in a migration from Rook's record-less holders needs comes from
// the plugin container's environment (environment.hpp).
exec::ResolveOptions nsenter_resolve_options() {
  exec::ResolveOptions options;
  options.remember = false;  // one resolve per process
  options.identity = identity_from_environment(options.identity);
  return options;
}

}  // namespace

bool is_nsenter_invocation(int argc, char** argv) {
  if (argc >= 1 && basename_of(argv[0]) == "nsenter") return true;
  return argc >= 2 && net_path_of(argv[1]).has_value();
}

int nsenter_main(int argc, char** argv) {
  std::optional<std::string> path;
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
  if (!path || path->empty())
    throw Error(Errc::invalid_argument, "nsenter form: --net=PATH is required",
                "call it as: nsenter --net=<netNamespaceFilePath> -- CMD ARGS...");
  if (i >= argc)
    throw Error(Errc::invalid_argument, "nsenter form: no command given after --net=" +
                                            quote(*path));

  // Like util-linux nsenter: validate, enter, exec in place. No child: the
  // pid, the signals the caller sends (Go's SIGKILL on timeout), the
  // descriptors, the ignored signals and the exit status are the command's
  // own. The process is single-threaded here, and every descriptor opened
  // so far is close-on-exec, so the command sees exactly what our caller
  // passed us — the namespace descriptor included, closed by execve.
  exec::ResolvedNamespace ns = exec::resolve(exec::Source::netns_path(*path), nsenter_resolve_options());
  exec::recheck_holder(ns);
  if (!ns.own_namespace && ::setns(ns.fd.get(), CLONE_NEWNET) != 0) {
    Error e = Error::sys("setns(CLONE_NEWNET)", ns.path, errno);
    e.context("nothing was run");
    throw e;
  }
  ::execvp(argv[i], argv + i);
  // nsenter's exit codes for a failed exec, and the spawn engine's (one
  // rule): 127 not found, 126 found but not runnable.
  const spawn::Outcome failed = spawn::Outcome::spawn_failed(spawn::Stage::exec, errno);
  std::vector<std::string> command(argv + i, argv + argc);
  ensure_logging();
  set_log_secrets(argc, argv);
  log_error(exec::redacted_command_line(command) + ": " + errno_text(failed.error) +
            (failed.shell_exit_code() == 127 ? ": command not found" : ""));
  return failed.shell_exit_code();
}

}  // namespace netns::cli
