#pragma once
// The nsenter-compatible form, so ceph-csi's
//   nsenter --net=<netNamespaceFilePath> -- rbd map ...
// works unchanged with this binary installed (or symlinked) as `nsenter`:
//   netns-exec --net=PATH [--] CMD ARGS...
//   nsenter    --net=PATH [--] CMD ARGS...   (argv[0] basename "nsenter")
// stdio is passed through, the command stays in our process group (as with
// nsenter), and the exit code is the command's own (SPEC codes otherwise).
// Only the network namespace is supported: any other nsenter option is
// refused with exit 125 rather than silently ignored.
#include <string_view>

namespace netns::cli {

// Whether argv asks for this form: invoked as "nsenter", or argv[1] is
// --net=PATH / -nPATH.
bool is_nsenter_invocation(int argc, char** argv);

// Returns the exit code.
int nsenter_main(int argc, char** argv);

}  // namespace netns::cli
