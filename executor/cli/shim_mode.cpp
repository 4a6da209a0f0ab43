#include "shim_mode.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "netns/error.hpp"
#include "netns_exec/shim/real_program.hpp"
#include "netns_exec/shim/route.hpp"
#include "nsenter_mode.hpp"

namespace netns::cli {

using exec::shim::basename_of;

bool is_shim_invocation(int argc, char** argv) {
  return argc >= 1 && exec::shim::tool_named(basename_of(argv[0])).has_value();
}

int shim_main(int argc, char** argv) {
  const std::string_view name = basename_of(argv[0]);
  const exec::shim::Tool tool = *exec::shim::tool_named(name);

  // The real program first: without it nothing can run, held or not.
  exec::shim::RealProgram real = exec::shim::find_real_program(name, argv[0]);
  if (!real.found()) {
    std::string why;
    for (const auto& r : real.reasons) why += "; " + r;
    throw Error(Errc::not_found,
                "transparent mode: netns-exec runs as " + quote(name) +
                    ", and the real program is not on PATH after it" + why + "; nothing was run",
                "install the real " + std::string(name) +
                    " in a PATH directory after the shim's (see manifests/images)");
  }

  const std::vector<std::string> args(argv + 1, argv + argc);
  const exec::shim::Environment env = exec::shim::Environment::from_process(tool);
  const exec::shim::Route route = exec::shim::route(tool, args, env);
  if (!route.held) return exec_untouched(real.path.c_str(), argv, name);

  // A held cluster is never served from the plugin's own namespace: every
  // refusal below is 125 with the real program not run.
  exec::ResolveOptions options = in_place_resolve_options();
  // ceph-csi with a netNamespaceFilePath still calls `nsenter --net=HOLDER --
  // rbd ...`: then this process is already in the holder's namespace, and
  // the record (required) proves that it is the holder's, not the plugin's.
  // Without a record to prove it (NETNS_EXEC_IDENTITY=if-present, or a file
  // outside a holder directory let through by NETNS_EXEC_ALLOW_UNRECORDED_NETNS),
  // our own namespace stays refused.
  options.allow_own_netns = options.identity == exec::IdentityPolicy::require;
  options.own_netns_needs_record = true;
  try {
    return enter_and_exec(*route.source, options, real.path.c_str(), argv, name);
  } catch (Error& e) {
    e.context("transparent mode: " +
              std::string(exec::shim::routes_by_monitors(tool) ? "cluster " : "holder ") +
              quote(route.cluster_id) + " (" + route.named + " " + quote(route.monitors.text) +
              ") is held, its holder " + quote(route.holder_path) + " cannot be used, and " +
              quote(real.path) + " was not run");
    e.default_hint(
        "is the cluster's netns-holder pod running on this node (NETNS_EXEC_WAIT_HOLDER "
        "waits for it)? `netns-exec shim explain -- " +
        std::string(name) + " ...` shows the decision");
    throw;
  }
}

}  // namespace netns::cli
