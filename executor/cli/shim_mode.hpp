#pragma once
// Transparent mode: netns-exec installed as a kernel client's program (`rbd`,
// `mount.ceph`, `nvme`, `mount.nfs`...: the rows of netns_exec/shim/tools.hpp;
// a symlink or a hard link, argv[0]'s basename) runs the real program of that
// name — the next one on PATH after the shim's directory, never netns-exec
// itself — untouched, or inside the holder of the held cluster the call
// names, through the in-place engine (validate, setns here, execve in place).
// The decision is netns_exec/shim/decision.hpp's; `netns-exec shim explain --
// CMD ...` prints the same one without running anything.
//
// Exit: the real program's own; 125 when nothing may run (a held cluster's
// holder cannot be used after NETNS_EXEC_WAIT_HOLDER, a session-opening call
// it cannot match, the real program not found); 126/127 when the real
// program's exec failed.
namespace netns::cli {

// argv[0]'s basename is one of the programs transparent mode stands in for.
bool is_shim_invocation(int argc, char** argv);

// Returns the exit code (or does not return: the real program runs in place).
int shim_main(int argc, char** argv);

}  // namespace netns::cli
