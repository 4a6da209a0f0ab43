#pragma once
// The anchors every figure is compared with, each spawning /usr/bin/true and
// waiting for it, exactly as a caller such as ceph-csi would:
//   plain   posix_spawn without any namespace change: the floor.
//   nsenter posix_spawn of `nsenter --net=PATH true`: what ceph-csi does today
//           (Go's os/exec also spawns with clone(CLONE_VM|CLONE_VFORK)).
//   fork    fork(), setns(fd, CLONE_NEWNET) in the child, execve: the naive
//           spawn whose cost grows with the caller's address space.
// Each throws std::runtime_error when the child does not exit 0, so a broken
// anchor stops the benchmark instead of timing a failure.
#include <string>
#include <vector>

namespace netns::bench {

// Absolute paths, resolved once from PATH, so that no variant pays for a
// PATH search the others do not.
const std::string& true_path();
const std::string& nsenter_path();

// Spawns argv[0] (an absolute path) with posix_spawn and waits; returns the
// wait status.
int spawn_and_wait(const std::vector<std::string>& argv);

void spawn_plain_true();
void spawn_nsenter_true(const std::string& ns_path);
void spawn_fork_setns_true(int ns_fd);

// Throws unless `status` is a normal exit with status 0.
void require_success(int status, const std::string& what);

}  // namespace netns::bench
