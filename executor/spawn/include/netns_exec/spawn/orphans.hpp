#pragma once
// `run --timeout` ends the command's process group; a descendant that left
// the group (setsid, setpgid: a daemon) would survive it, in the holder's
// namespace. A caller that is a child subreaper while it runs a command
// (netns-exec run is) adopts such a descendant once its parent dies, and
// finds and kills it here. This is process policy of the whole caller
// (become_subreaper is process-wide), so run() never does it by itself. What can still escape: a
// process that is re-parented to another subreaper below us or has left our process tree by other
// means (started by another service: systemd-run, a udev rule, a kernel worker), and one stuck in
// the kernel that SIGKILL cannot end yet (named, not waited for).
#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

namespace netns::spawn {

// prctl(PR_SET_CHILD_SUBREAPER); throws netns::Error.
void become_subreaper();

struct Orphan {
  pid_t pid = -1;
  std::string comm;
  bool stuck = false;  // still there 2 s after SIGKILL
};

// This process's children now (taken before the command starts: children
// netns-exec inherited from whoever exec'ed it are not the command's).
std::set<pid_t> current_children();

// SIGKILLs and reaps every child of this process but `spare` (the ones that
// were there before the command, and the command itself if another thread
// still waits for it), again for whatever they left behind, until there is
// none (bounded). Each remaining child is a descendant that escaped.
// Returns the ones that were still running (zombies, group members that
// died with the group and were reparented to us, are reaped silently).
std::vector<Orphan> kill_orphans(const std::set<pid_t>& spare);

}  // namespace netns::spawn
