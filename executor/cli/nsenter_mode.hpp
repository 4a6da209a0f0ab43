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
#include <chrono>
#include <string_view>

#include "netns_exec/source.hpp"

namespace netns::cli {

// Whether argv asks for this form: invoked as "nsenter", or argv[1] is
// --net=PATH, -nPATH, --net PATH or -n PATH.
bool is_nsenter_invocation(int argc, char** argv);

// Returns the exit code (or does not return: the command runs in place).
int nsenter_main(int argc, char** argv);

// The resolve options every in-place form takes from the environment (its
// call line is the caller's, not ours): NETNS_EXEC_IDENTITY (the identity
// policy), NETNS_EXEC_ALLOW_UNRECORDED_NETNS (1: a namespace file no holder
// record vouches for is used) and NETNS_EXEC_WAIT_HOLDER (a duration; unset:
// no wait).
exec::ResolveOptions in_place_resolve_options();

// The engine of the nsenter form and of transparent mode: resolve `source`
// (every check of the one policy), re-check the holder, setns(CLONE_NEWNET)
// in this single-threaded process, and execve `program` (execvp of
// command[0] when null) with `command` as argv. Returns only when the exec
// failed: nsenter's status (127 ENOENT, else 126), after telling stderr as
// nsenter does, `<tool>: failed to execute <cmd>: <strerror>`. Throws
// netns::Error (main() logs it, exit 125) when nothing may run.
int enter_and_exec(const exec::Source& source, const exec::ResolveOptions& options,
                   const char* program, char** command, std::string_view tool);

// execv(program, argv) untouched: the pass-through of nsenter and of the
// shims. Returns only when the exec failed, with nsenter's status.
int exec_untouched(const char* program, char** argv, std::string_view tool);

// nsenter's status for a failed exec: 127 for ENOENT, 126 for anything else
// (util-linux errexec(): ENOTDIR, ELOOP, ENAMETOOLONG are 126 like EACCES).
int nsenter_exec_failure_status(int err) noexcept;

}  // namespace netns::cli
