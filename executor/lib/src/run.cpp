#include "netns_exec/executor.hpp"

#include <cerrno>

#include "netns/error.hpp"
#include "netns/proc.hpp"

namespace netns::exec {

// A holder that exited after resolve() validated it leaves a namespace only
// our descriptor keeps alive: nobody holds it, and whatever is mapped there
// dies with our child. The record that vouched for the descriptor says which
// process to look for; its start time guards against a reused pid. Checked
// right before the spawn, so the window that remains is the clone-to-setns
// of our own child, not the caller's arbitrary delay since resolve().
// Without a record (socket mode, --identity off) there is nothing to check.
void require_holder_still_alive(const ResolvedNamespace& ns) {
  if (ns.own_namespace || !ns.record) return;
  const HolderRecord& record = *ns.record;
  if (record.pidns_ino != current_pidns_id().ino) return;  // its pid means nothing here
  if (pid_start_time(record.pid) == record.pid_start_time) return;
  Error e(Errc::stale_holder,
          "run: holder pid " + std::to_string(record.pid) +
              " exited after the namespace was validated; nothing was run: " + errno_text(ESRCH),
          "is the netns-holder pod restarting? retry once it is running again");
  if (!ns.cluster_id.empty()) e.context("cluster " + quote(ns.cluster_id));
  throw e;
}

RunResult run_in(const ResolvedNamespace& ns, spawn::Command command) {
  require_holder_still_alive(ns);
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
