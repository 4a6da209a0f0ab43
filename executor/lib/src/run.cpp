#include "netns_exec/executor.hpp"

namespace netns::exec {

RunResult run_in(const ResolvedNamespace& ns, spawn::Command command) {
  // The validated descriptor itself, never the path again: re-opening it here
  // would let a swapped link put the command somewhere unchecked.
  command.netns_fd = ns.own_namespace ? -1 : ns.fd.get();
  RunResult out;
  out.result = spawn::run(command);
  out.netns = ns.id;
  out.own_namespace = ns.own_namespace;
  out.netns_description = ns.describe();
  return out;
}

RunResult run(const Source& source, spawn::Command command, const ResolveOptions& options) {
  ResolvedNamespace ns = resolve(source, options);
  return run_in(ns, std::move(command));
}

}  // namespace netns::exec
