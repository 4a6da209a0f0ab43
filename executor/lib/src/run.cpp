#include "netns_exec/executor.hpp"

#include "netns/error.hpp"

namespace netns::exec {

namespace {

RunResult spawn_in(const ResolvedNamespace& ns, spawn::Command command) {
  // The validated descriptor itself, never the path again: re-opening it here
  // would let a swapped link put the command somewhere unchecked.
  command.netns_fd = ns.own_namespace ? -1 : ns.fd.get();
  RunResult out;
  out.result = spawn::run(command);
  out.netns = ns.id;
  out.own_namespace = ns.own_namespace;
  out.netns_description = ns.describe();
  out.warning = ns.warning;
  return out;
}

}  // namespace

// A holder that exited after resolve() validated it leaves a namespace only
// our descriptor keeps alive: nobody holds it, and whatever is mapped there
// dies with our child. recheck_holder() asks the pidfd resolve() kept for the
// record's holder, so no pid reuse can fool it. Checked right before the
// spawn, so the window that remains is the clone-to-setns of our own child,
// not the caller's arbitrary delay since resolve(). Without a record (socket
// mode, --identity off) there is nothing to check.
RunResult run_in(const ResolvedNamespace& ns, spawn::Command command) {
  recheck_holder(ns);
  return spawn_in(ns, std::move(command));
}

RunResult run(const Source& source, spawn::Command command, const ResolveOptions& options) {
  return run_in(resolve(source, options), std::move(command));
}

}  // namespace netns::exec
