#pragma once
// Creating the child: glibc's clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD),
// or fork where ThreadSanitizer needs it (and for tests). Both give the
// caller a pidfd for the child and report failure as an errno; only `fork`
// runs the caller's atfork handlers.
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
  [[nodiscard]] void* base() const noexcept { return base_; }   // lowest usable byte
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

// The child starts with the caller's signal handlers (the same addresses, in
// the same memory): child_main resets every disposition before anything else.
Started start_child(CloneMethod method, int (*fn)(void*) noexcept, void* arg,
                    const ChildStack* stack) noexcept;

}  // namespace netns::spawn::detail
