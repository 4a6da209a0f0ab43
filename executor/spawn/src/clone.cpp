#include "clone.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "netns/error.hpp"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

namespace netns::spawn::detail {

namespace {

constexpr size_t kStackSize = size_t{128} << 10;

// struct clone_args as of Linux 5.3 (CLONE_ARGS_SIZE_VER0). Passing only the
// fields we use lets the oldest clone3 kernels accept it.
struct CloneArgsV0 {
  uint64_t flags;
  uint64_t pidfd;
  uint64_t child_tid;
  uint64_t parent_tid;
  uint64_t exit_signal;
  uint64_t stack;
  uint64_t stack_size;
  uint64_t tls;
};
static_assert(sizeof(CloneArgsV0) == 64);

}  // namespace

}  // namespace netns::spawn::detail

#if defined(__x86_64__) && defined(SYS_clone3)
// clone3 switches the child to the new stack inside the system call, so the
// child cannot return into C code that still expects the caller's frame:
// this trampoline calls fn(arg) on the new stack and exits with its result,
// like glibc's internal clone3. Parent: returns the pid or -errno.
//   long netns_spawn_clone3(args, size, fn, arg)   rdi, rsi, rdx, rcx
// The syscall instruction clobbers rcx and r11 only, so fn stays in rdx and
// arg is moved to r8; the child starts with the caller's registers.
extern "C" long netns_spawn_clone3(void* args, size_t size, int (*fn)(void*), void* arg);
asm(R"(
    .text
    .p2align 4
    .globl netns_spawn_clone3
    .hidden netns_spawn_clone3
    .type netns_spawn_clone3, @function
netns_spawn_clone3:
    .cfi_startproc
    mov %rcx, %r8
    mov $435, %eax
    syscall
    test %rax, %rax
    jz 1f
    ret
1:
    .cfi_undefined rip
    xor %ebp, %ebp
    mov %r8, %rdi
    call *%rdx
    mov %eax, %edi
    mov $231, %eax
    syscall
    hlt
    .cfi_endproc
    .size netns_spawn_clone3, .-netns_spawn_clone3
)");
#define NETNS_HAVE_CLONE3_TRAMPOLINE 1
#endif

namespace netns::spawn::detail {

namespace {

#ifdef NETNS_HAVE_CLONE3_TRAMPOLINE
// Feature test, never a version comparison: clone3 with a zero size is
// EINVAL where the call exists and ENOSYS where it does not (old kernels,
// seccomp profiles that hide it so that libc falls back to clone).
bool probe_clone3() noexcept {
  long r = ::syscall(SYS_clone3, nullptr, 0);
  return !(r < 0 && errno == ENOSYS);
}
#endif

Started with_clone3(int (*fn)(void*) noexcept, void* arg, const ChildStack& stack) noexcept {
#ifdef NETNS_HAVE_CLONE3_TRAMPOLINE
  int pidfd = -1;
  CloneArgsV0 args{};
  args.flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD;
  args.pidfd = reinterpret_cast<uintptr_t>(&pidfd);
  args.exit_signal = 0;
  args.stack = reinterpret_cast<uintptr_t>(stack.base());
  args.stack_size = stack.size();
  long r = netns_spawn_clone3(&args, sizeof args, reinterpret_cast<int (*)(void*)>(fn), arg);
  if (r < 0) return Started{-1, -1, static_cast<int>(-r)};
  return Started{static_cast<pid_t>(r), pidfd, 0};
#else
  (void)fn;
  (void)arg;
  (void)stack;
  return Started{-1, -1, ENOSYS};
#endif
}

Started with_clone(int (*fn)(void*) noexcept, void* arg, const ChildStack& stack) noexcept {
  int pidfd = -1;
  // The stack grows down on every architecture Linux still ships where this
  // matters; glibc's clone takes the top.
  void* top = static_cast<char*>(stack.base()) + stack.size();
  int pid = ::clone(reinterpret_cast<int (*)(void*)>(fn), top,
                    CLONE_VM | CLONE_VFORK | CLONE_PIDFD, arg, &pidfd);
  if (pid < 0) return Started{-1, -1, errno};
  return Started{pid, pidfd, 0};
}

Started with_fork(int (*fn)(void*) noexcept, void* arg) noexcept {
  pid_t pid = ::fork();
  if (pid < 0) return Started{-1, -1, errno};
  if (pid == 0) fn(arg);  // never returns
  long pidfd = ::syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) {
    // Our own unreaped child: it cannot be gone, only the call unsupported.
    int err = errno;
    ::kill(pid, SIGKILL);
    siginfo_t info{};
    ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | __WALL);
    return Started{-1, -1, err};
  }
  return Started{pid, static_cast<int>(pidfd), 0};
}

}  // namespace

bool clone3_supported() noexcept {
#ifdef NETNS_HAVE_CLONE3_TRAMPOLINE
  // 0 unknown, 1 yes, 2 no. Racing first callers compute the same answer.
  static std::atomic<int> state{0};
  int s = state.load(std::memory_order_relaxed);
  if (s == 0) {
    s = probe_clone3() ? 1 : 2;
    state.store(s, std::memory_order_relaxed);
  }
  return s == 1;
#else
  return false;
#endif
}

Started start_child(CloneMethod method, int (*fn)(void*) noexcept, void* arg,
                    const ChildStack& stack) noexcept {
  switch (method) {
    case CloneMethod::clone3: return with_clone3(fn, arg, stack);
    case CloneMethod::clone: return with_clone(fn, arg, stack);
    case CloneMethod::fork: return with_fork(fn, arg);
    case CloneMethod::automatic: break;
  }
  if (clone3_supported()) {
    Started s = with_clone3(fn, arg, stack);
    if (!(s.pid < 0 && s.error == ENOSYS)) return s;
  }
  return with_clone(fn, arg, stack);
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
