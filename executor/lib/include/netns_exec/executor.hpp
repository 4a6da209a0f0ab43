#pragma once
// The C++ API: run one command inside the network namespace a Source names.
//
//   netns::spawn::Command cmd;
//   cmd.argv = {"rbd", "map", "pool/img", "--device-type", "krbd", "--options", "noudev"};
//   cmd.timeout = std::chrono::seconds(30);
//   auto r = netns::exec::run(netns::exec::Source::cluster("ceph-a"), cmd);
//   if (!r.result.outcome.success()) ... r.result.err.data ...
//
// Everything that can go wrong before the command starts (no holder, stale
// holder, not a network namespace, bad config) is thrown as netns::Error:
// nothing ran. What became of the command is a value (spawn::Outcome).
// Thread-safe: any number of threads may call run() at once; the caller's
// threads never change namespace (only the child does, with setns).
#include <string>

#include "netns/api.h"
#include "netns/nsfd.hpp"
#include "netns_exec/source.hpp"
#include "netns_exec/spawn/spawn.hpp"

namespace netns::exec {

struct RunResult {
  spawn::Result result;           // outcome, captured output, pid, elapsed time
  NsId netns;                     // the namespace the command ran in
  bool own_namespace = false;     // no holder configured: ran in the caller's namespace
  std::string netns_description;  // ResolvedNamespace::describe()
  std::string warning;            // ResolvedNamespace::warning ("" for none)

  // The exit code per SPEC: the command's own, 124 timeout, 125 the executor
  // failed, 126 not executable, 127 not found, 128+N signal N.
  [[nodiscard]] int exit_code() const noexcept { return result.outcome.shell_exit_code(); }
};

// Resolves and validates `source`, then runs `command` in it. command.netns_fd
// is ignored (set from the validated descriptor).
NETNS_EXEC_API RunResult run(const Source& source, spawn::Command command,
                             const ResolveOptions& options = {});

// Runs in an already resolved namespace: the descriptor that was validated is
// the one entered. Reuse one ResolvedNamespace for several commands only while
// the holder is known to be the same.
NETNS_EXEC_API RunResult run_in(const ResolvedNamespace& ns, spawn::Command command);

}  // namespace netns::exec
