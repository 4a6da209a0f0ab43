#include "clone.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "netns/error.hpp"
#include "netns/fd.hpp"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

namespace netns::spawn::detail {

namespace {

constexpr size_t kStackSize = size_t{128} << 10;

// glibc's clone(CLONE_VM | CLONE_VFORK): no copy of the caller's page
// tables, and the caller sleeps until the child has exec'ed or exited.
// The exit signal is SIGCHLD as for any child: execve would reset another
// one to SIGCHLD anyway (see spawn_engine_test). Reaping goes through the
// pidfd.
Started with_clone(int (*fn)(void*) noexcept, void* arg, const ChildStack& stack) noexcept {
  int pidfd = -1;
  // The stack grows down on every architecture Linux still ships where this
  // matters; glibc's clone takes the top.
  void* top = static_cast<char*>(stack.base()) + stack.size();
  int pid = ::clone(reinterpret_cast<int (*)(void*)>(fn), top,
                    CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, arg, &pidfd);
  if (pid < 0) return Started{-1, -1, errno};
  return Started{pid, pidfd, 0};
}

Started with_fork(int (*fn)(void*) noexcept, void* arg) noexcept {
  pid_t pid = ::fork();
  if (pid < 0) return Started{-1, -1, errno};
  if (pid == 0) fn(arg);  // never returns
  // The parent, after the fork: make_pidfd may throw here (the child is
  // past its own code); its Error keeps the errno this function reports.
  int err = 0;
  try {
    return Started{pid, make_pidfd(pid).release(), 0};
  } catch (const Error& e) {
    // Our own unreaped child: it cannot be gone, only the call unsupported.
    err = e.sys_errno();
  } catch (...) {
    err = ENOMEM;  // the message could not be built
  }
  ::kill(pid, SIGKILL);
  siginfo_t info{};
  ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | __WALL);
  return Started{-1, -1, err};
}

// ThreadSanitizer intercepts glibc's clone() and handles it like fork(), in
// memory the CLONE_VM child shares with us: the caller is then marked as a
// forked child and dies at its next pthread_create ("starting new threads
// after multi-threaded fork"). In a TSan build the automatic method is
// therefore fork, which TSan understands; the child's code is the same.
#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif

}  // namespace

bool shares_memory(CloneMethod method) noexcept {
  return !(method == CloneMethod::fork || (kThreadSanitizer && method == CloneMethod::automatic));
}

Started start_child(CloneMethod method, int (*fn)(void*) noexcept, void* arg,
                    const ChildStack* stack) noexcept {
  if (!shares_memory(method)) return with_fork(fn, arg);
  if (stack == nullptr) return Started{-1, -1, EINVAL};
  return with_clone(fn, arg, *stack);
}

ChildStack& ChildStack::for_this_thread() {
  thread_local ChildStack stack;
  return stack;
}
ChildStack::ChildStack() {
  long page = ::sysconf(_SC_PAGESIZE);
  size_t guard = page > 0 ? static_cast<size_t>(page) : 4096;
  map_size_ = kStackSize + guard;
  map_ = ::mmap(nullptr, map_size_, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw Error::sys("mmap", "child stack", errno);
  }
  // The lowest page is the guard: a child overrunning its stack faults
  // instead of writing into whatever the caller mapped below.
  if (::mprotect(map_, guard, PROT_NONE) != 0) {
    int err = errno;
    ::munmap(map_, map_size_);
    map_ = nullptr;
    throw Error::sys("mprotect", "child stack guard", err);
  }
  base_ = static_cast<char*>(map_) + guard;
  size_ = kStackSize;
}

ChildStack::~ChildStack() {
  if (map_ != nullptr) ::munmap(map_, map_size_);
}

}  // namespace netns::spawn::detail
