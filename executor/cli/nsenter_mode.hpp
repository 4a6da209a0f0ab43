#pragma once
// The nsenter-compatible form, so ceph-csi's
//   nsenter --net=<netNamespaceFilePath> -- rbd map ...
// works unchanged with this binary installed (or symlinked) as `nsenter`:
//   netns-exec --net=PATH [--] CMD ARGS...
//   nsenter    --net=PATH [--] CMD ARGS...   (argv[0] basename "nsenter")
// Like nsenter it execs the command in place after setns(CLONE_NEWNET) in
// this process: same pid, process group, descriptors, signal dispositions
// and mask, and the command's own exit status or fatal signal. Only what
// fails before the exec is ours: 125 (refused, nothing ran), 126/127 (exec
// failed).
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
