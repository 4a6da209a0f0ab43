#include "shim_mode.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "netns/error.hpp"
#include "netns_exec/shim/decision.hpp"
#include "netns_exec/shim/in_place.hpp"

namespace netns::cli {

using exec::shim::basename_of;

bool is_shim_invocation(int argc, char** argv) {
  return argc >= 1 && exec::shim::tool_named(basename_of(argv[0])) != nullptr;
}

int shim_main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const exec::shim::Decision d =
      exec::shim::decide(argv[0], args, exec::shim::Environment::from_process());
  switch (d.verdict) {
    case exec::shim::Verdict::refused:
      throw *d.refusal;  // main() logs it: 125, nothing ran
    case exec::shim::Verdict::untouched:
      // The operator's opt-out is never silent: the sessions it opens die
      // with the plugin pod.
      if (d.opted_out) std::fprintf(stderr, "netns-exec: warning: %s\n", d.why.c_str());
      return exec::shim::exec_untouched(d.real.path.c_str(), argv, d.program);
    case exec::shim::Verdict::holder:
      break;
  }
  // A held cluster is never served from the plugin's own namespace: every
  // refusal below is 125 with the real program not run.
  try {
    return exec::shim::enter_and_exec(*d.source, d.options, d.real.path.c_str(), argv, d.program);
  } catch (const Error& e) {
    throw d.unusable(e);
  }
}

}  // namespace netns::cli
