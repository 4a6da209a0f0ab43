#pragma once
// The nsenter-compatible form, so ceph-csi's
//   nsenter --net=<netNamespaceFilePath> -- rbd map ...
// works unchanged with this binary installed (or symlinked) as `nsenter`:
//   netns-exec --net=PATH | --net PATH | -n PATH | -nPATH [--] CMD ARGS...
//   nsenter    (the same, argv[0] basename "nsenter")
// Like nsenter it execs the command in place after setns(CLONE_NEWNET) in
// this process: same pid, process group, descriptors, signal dispositions
// and mask, and the command's own exit status or fatal signal. Only what
// fails before the exec is ours: 125 (refused, nothing ran), and nsenter's
// own statuses for a failed exec: 127 for ENOENT, 126 for anything else.
//
// Installed as `nsenter`, every invocation that is not a network-namespace
// entry by file (--version, -h, no arguments, -t PID -m, -n with -t, ...)
// is util-linux nsenter's: the real one (NETNS_EXEC_NSENTER, else the next
// `nsenter` on PATH after this one) is exec'd with the same argv. A net
// entry mixed with other namespaces or options is refused (125): its
// namespace file would then be opened by a program that does not check it.
// `-n PATH`/`--net PATH`: util-linux reads `-n` without an attached value as
// "the target's namespace", which needs -t; with no -t it fails ("neither
// filename nor target pid supplied"). Here the next word is the file, which
// is what ceph-csi-style callers mean; with -t anywhere the whole call is
// util-linux's.

namespace netns::cli {

// Whether argv asks for this form: invoked as "nsenter", or argv[1] is
// --net=PATH, -nPATH, --net PATH or -n PATH.
bool is_nsenter_invocation(int argc, char** argv);

// Returns the exit code (or does not return: the command runs in place).
int nsenter_main(int argc, char** argv);

// The engine (resolve, re-check, setns, exec in place) is
// netns_exec/shim/in_place.hpp, shared with transparent mode.

}  // namespace netns::cli
