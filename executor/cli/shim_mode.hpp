#pragma once
// Transparent mode: netns-exec installed as `rbd` or `mount.ceph` (a symlink
// or a hard link; argv[0]'s basename) runs the real program of that name —
// the next one on PATH after the shim's directory, never netns-exec itself —
// and, when the command names the monitors of a held cluster, runs it inside
// that cluster's holder namespace through the nsenter form's engine
// (validate, setns here, execve in place). No netNamespaceFilePath and no
// change to ceph-csi. The decision is netns_exec/shim/route.hpp's; `netns-exec
// shim explain -- CMD ...` prints it without running anything.
//
// Exit: the real program's own; 125 when a held cluster's holder cannot be
// used (after NETNS_EXEC_WAIT_HOLDER) or the real program is not found — then
// nothing ran; 126/127 when the real program's exec failed.
namespace netns::cli {

// argv[0]'s basename is one of the programs transparent mode stands in for.
bool is_shim_invocation(int argc, char** argv);

// Returns the exit code (or does not return: the real program runs in place).
int shim_main(int argc, char** argv);

}  // namespace netns::cli
