#pragma once
// What the child does between clone and execve. Everything it touches is
// built by the caller before the clone: the child shares the caller's memory
// (CLONE_VM) and may only make async-signal-safe system calls. It must not
// allocate, lock, log or throw, and it leaves by execve or exit_group.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "netns_exec/spawn/spawn.hpp"

namespace netns::spawn::detail {

// What the child reports when it cannot exec. A CLONE_VM child stores it in
// `report` below, in memory the caller shares and reads once the clone has
// returned (the vfork wait ends at exec or exit, so nothing is in flight); a
// forked child writes it to error_fd instead: 8 bytes in one write(2), atomic
// on a pipe (below PIPE_BUF), and EOF there means exec succeeded.
struct ChildReport {
  static constexpr int32_t kNone = -1;  // no report: exec went past its point of no return
  int32_t stage = kNone;
  int32_t error = 0;
};

struct ChildPlan {
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* const* candidates = nullptr;  // absolute or relative paths to try, in order
  size_t candidate_count = 0;
  int netns_fd = -1;            // -1: no setns
  const char* cwd = nullptr;    // nullptr: no chdir
  int stdio[3] = {-1, -1, -1};  // descriptors (all >= 3) to put on 0,1,2; -1: leave alone
  int error_fd = -1;            // fork only: write end of the report pipe, >= 3, close-on-exec
  ProcessGroup group = ProcessGroup::own_group;
  pid_t parent = -1;              // getpid() of the caller, for the PR_SET_PDEATHSIG check
  ChildReport* report = nullptr;  // CLONE_VM: where the child stores its report
};

// The child's entry point; `plan` is a ChildPlan*. Never returns.
int child_main(void* plan) noexcept;

}  // namespace netns::spawn::detail
