#pragma once
// The engine of the in-place forms (the nsenter form and transparent mode):
// resolve (every check of the one policy), re-check the holder, setns(CLONE_NEWNET)
// in this single-threaded process, and execve the command in place, as
// util-linux nsenter does: same pid, process group, descriptors, signal
// dispositions and mask, and the command's own exit status or fatal signal.
// Only what fails before the exec is ours: an Error (exit 125, nothing ran),
// and nsenter's own statuses for a failed exec (127 ENOENT, else 126).
#include <string_view>

#include "netns_exec/source.hpp"

namespace netns::exec::shim {

// The resolve options every in-place form takes from the environment (its
// call line is the caller's, not ours), from the variables' values:
//   identity          NETNS_EXEC_IDENTITY: "require" or "if-present" (the opt-in for
//                     record-less, Rook-era holders); unset or empty: require
//   allow_unrecorded  NETNS_EXEC_ALLOW_UNRECORDED_NETNS: "1" accepts a namespace file no
//                     holder record vouches for; unset, empty or "0": refused
//   wait_holder       NETNS_EXEC_WAIT_HOLDER: a duration to wait for a missing holder file
// A value outside these throws Error(invalid_argument) naming the variable
// and what it allows: `NETNS_EXEC_IDENTITY=off` in a plugin's environment
// must not switch the holder check off.
ResolveOptions in_place_options(std::string_view identity, std::string_view allow_unrecorded,
                                std::string_view wait_holder);

// The same, read from the process environment.
ResolveOptions in_place_options_from_environment();

// Resolve `source`, re-check the holder, enter, and execve `program` (execvp
// of command[0] when null) with `command` as argv. Returns only when the
// exec failed: nsenter's status (127 ENOENT, else 126), after telling stderr
// as nsenter does, `<tool>: failed to execute <cmd>: <strerror>`. Throws
// netns::Error when nothing may run.
int enter_and_exec(const Source& source, const ResolveOptions& options, const char* program,
                   char** command, std::string_view tool);

// execv(program, argv) untouched: the pass-through of nsenter and of the
// shims. Returns only when the exec failed, with nsenter's status.
int exec_untouched(const char* program, char** argv, std::string_view tool);

// nsenter's status for a failed exec: 127 for ENOENT, 126 for anything else
// (util-linux errexec(): ENOTDIR, ELOOP, ENAMETOOLONG are 126 like EACCES).
int nsenter_exec_failure_status(int err) noexcept;

}  // namespace netns::exec::shim
