#pragma once
// Creating the child. All methods give the caller a pidfd for the child and
// report failure as a negative errno; none of them runs the caller's atfork
// handlers except `fork`.
#include <sys/types.h>

#include <cstddef>

#include "netns_exec/spawn_testing.hpp"

namespace netns::spawn::detail {

struct Started {
  pid_t pid = -1;
  int pidfd = -1;  // owned by the caller; close-on-exec
  int error = 0;   // errno when pid < 0
};

// A private stack for a CLONE_VM child, mmap'd with a guard page below it.
class ChildStack {
 public:
  ChildStack();  // throws netns::Error
  // The calling thread's own, made on first use and unmapped when the thread
  // exits. A spawn holds it only while the child runs on it (until exec).
  static ChildStack& for_this_thread();
  ~ChildStack();
  ChildStack(const ChildStack&) = delete;
  ChildStack& operator=(const ChildStack&) = delete;
  [[nodiscard]] void* base() const noexcept { return base_; }  // lowest usable byte
  [[nodiscard]] size_t size() const noexcept { return size_; }  // usable bytes

 private:
  void* map_ = nullptr;
  size_t map_size_ = 0;
  void* base_ = nullptr;
  size_t size_ = 0;
};

// Runs fn(arg) in a new process. With clone (automatic) the caller is
// suspended until the child has called execve or exited (CLONE_VFORK), and
// the child runs on `stack`. With fork the caller continues at once.
// True when `method` (automatic resolved) runs the child in the caller's
// memory (CLONE_VM | CLONE_VFORK): the child's report can then be a store.
bool shares_memory(CloneMethod method) noexcept;

// `handlers_cleared` (which the child reads, so it must be in memory the
// child can see) is set true when the kernel reset the caller's signal
// handlers to SIG_DFL in the child (clone3 with CLONE_CLEAR_SIGHAND, x86-64,
// Linux 5.5), false when the child must do it.
Started start_child(CloneMethod method, int (*fn)(void*) noexcept, void* arg, const ChildStack* stack,
                    bool* handlers_cleared) noexcept;

}  // namespace netns::spawn::detail
