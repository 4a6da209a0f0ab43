#include "clone.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <optional>

#include "netns/error.hpp"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif

#if defined(__x86_64__) && defined(SYS_clone3)
// clone3 switches the child to the new stack inside the system call, so the
// child cannot return into C code that still expects the caller's frame:
// this trampoline calls fn(arg) on the new stack and exits with its result,
// as glibc's internal clone3 does. Parent: returns the pid or -errno.
//   long netns_spawn_clone3(args, size, fn, arg)   rdi, rsi, rdx, rcx
// The syscall instruction clobbers rcx and r11 only, so fn stays in rdx and
// arg is moved to r8; the child starts with the caller's registers on a
// 16-byte aligned stack top (the stack is page aligned).
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

constexpr size_t kStackSize = size_t{128} << 10;

#ifdef NETNS_HAVE_CLONE3_TRAMPOLINE
// struct clone_args as of Linux 5.3 (CLONE_ARGS_SIZE_VER0). Passing only the
// fields we use lets every clone3 kernel accept it.
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

// Set once clone3 has refused CLONE_CLEAR_SIGHAND (ENOSYS: no clone3, or a
// seccomp profile hiding it so that libc falls back to clone; EINVAL: a
// kernel before 5.5). Racing first callers learn the same answer.
std::atomic<bool> clone3_refused{false};
#endif

// clone3(CLONE_VM | CLONE_VFORK | CLONE_PIDFD | CLONE_CLEAR_SIGHAND): as
// glibc's clone below, and the kernel resets every signal the caller handles
// to SIG_DFL in the child, so the child need not do it with 62 sigaction
// calls (about 15 us of the caller's wait here). Nullopt where that is not
// available; then nothing was started.
std::optional<Started> with_clone3(int (*fn)(void*) noexcept, void* arg, const ChildStack& stack) noexcept {
#ifdef NETNS_HAVE_CLONE3_TRAMPOLINE
  if (clone3_refused.load(std::memory_order_relaxed)) return std::nullopt;
  int pidfd = -1;
  CloneArgsV0 args{};
  args.flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | CLONE_CLEAR_SIGHAND;
  args.pidfd = reinterpret_cast<uintptr_t>(&pidfd);
  args.exit_signal = SIGCHLD;
  args.stack = reinterpret_cast<uintptr_t>(stack.base());
  args.stack_size = stack.size();
  long r = netns_spawn_clone3(&args, sizeof args, reinterpret_cast<int (*)(void*)>(fn), arg);
  if (r == -ENOSYS || r == -EINVAL) {
    clone3_refused.store(true, std::memory_order_relaxed);
    return std::nullopt;
  }
  if (r < 0) return Started{-1, -1, static_cast<int>(-r)};
  return Started{static_cast<pid_t>(r), pidfd, 0};
#else
  (void)fn;
  (void)arg;
  (void)stack;
  return std::nullopt;
#endif
}

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

Started start_child(CloneMethod method, int (*fn)(void*) noexcept, void* arg, const ChildStack* stack,
                    bool* handlers_cleared) noexcept {
  *handlers_cleared = false;
  if (!shares_memory(method)) return with_fork(fn, arg);
  if (stack == nullptr) return Started{-1, -1, EINVAL};
  // The child reads the flag (it shares our memory): set before the clone.
  *handlers_cleared = true;
  if (std::optional<Started> started = with_clone3(fn, arg, *stack)) return *started;
  *handlers_cleared = false;
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
