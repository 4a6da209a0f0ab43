#include "child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

// Only raw syscall(2) is used here: glibc wrappers may be intercepted by
// sanitizers, whose bookkeeping is not safe in a child that shares the
// caller's memory and thread-local storage. syscall(2) itself only sets
// errno, which lives in the caller's TLS; the caller is suspended (vfork) and
// does not read it.
// Sanitizer instrumentation (fake stacks, shadow bookkeeping in thread-local
// state) must not run in the child either: it shares that state with the
// suspended caller thread.
#if defined(__clang__) || defined(__GNUC__)
#define NETNS_CHILD_CODE __attribute__((no_sanitize("address", "thread", "undefined")))
#else
#define NETNS_CHILD_CODE
#endif

namespace netns::spawn::detail {
namespace {

[[noreturn]] NETNS_CHILD_CODE void report_and_exit(const ChildPlan& plan, Stage stage,
                                                   int err) noexcept {
  ChildReport report;
  report.stage = static_cast<int32_t>(stage);
  report.error = static_cast<int32_t>(err);
  if (plan.report != nullptr) {
    // The stage last, so a caller that sees it sees the errno too.
    __atomic_store_n(&plan.report->error, report.error, __ATOMIC_RELAXED);
    __atomic_store_n(&plan.report->stage, report.stage, __ATOMIC_RELEASE);
  }
  // Nothing to do if this fails: the caller then sees an empty report pipe
  // and a child that exited 127 before exec, which it reports as exec failed.
  if (plan.error_fd >= 0) (void)::syscall(SYS_write, plan.error_fd, &report, sizeof report);
  ::syscall(SYS_exit_group, 127);
  __builtin_unreachable();
}

// Every disposition back to SIG_DFL, the ignored ones included: the command
// starts as a fresh process would, whatever its caller (a Go runtime, a CLI
// that ignores SIGPIPE for its own output) set for itself. The caller blocked
// every signal before the clone, so no handler of the caller can run on this
// stack in the meantime. An all-zero kernel sigaction is SIG_DFL with no
// flags and an empty mask, whatever the architecture's layout, so no struct
// definition is needed.
NETNS_CHILD_CODE void reset_dispositions() noexcept {
  alignas(16) static const unsigned char kDefault[128] = {};
  for (int sig = 1; sig < _NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    // EINVAL for numbers the kernel does not have is fine to ignore.
    (void)::syscall(SYS_rt_sigaction, sig, kDefault, nullptr, _NSIG / 8);
  }
}

NETNS_CHILD_CODE int close_stray_fds(const ChildPlan& plan) noexcept {
  // Preferred: mark everything from 3 up close-on-exec. A report pipe stays
  // open until execve closes it (its EOF tells the caller exec succeeded).
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return 0;
  int err = errno;
  if (err == EINVAL) {
    // Kernel without CLOSE_RANGE_CLOEXEC (< 5.11): close around a report
    // pipe, which is close-on-exec already.
    if (plan.error_fd < 0) return ::syscall(SYS_close_range, 3U, ~0U, 0U) == 0 ? 0 : errno;
    unsigned fd = static_cast<unsigned>(plan.error_fd);
    if (fd > 3 && ::syscall(SYS_close_range, 3U, fd - 1, 0U) != 0) return errno;
    if (::syscall(SYS_close_range, fd + 1, ~0U, 0U) != 0) return errno;
    return 0;
  }
  if (err != ENOSYS) return err;
  // No close_range (< 5.9): close each possible descriptor up to the limit.
  struct rlimit limit {};
  unsigned max = 65536;
  if (::syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, nullptr, &limit) == 0 &&
      limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < max)
    max = static_cast<unsigned>(limit.rlim_cur);
  for (unsigned fd = 3; fd < max; ++fd)
    if (static_cast<int>(fd) != plan.error_fd) (void)::syscall(SYS_close, fd);
  return 0;
}

}  // namespace

NETNS_CHILD_CODE int child_main(void* arg) noexcept {
  const ChildPlan& plan = *static_cast<const ChildPlan*>(arg);

  reset_dispositions();

  // Die with the caller: a SIGKILLed netns-exec (Go's CommandContext on
  // timeout) must not leave the command running, reparented to init. If the
  // caller is already gone (killed while we ran up to here), the signal will
  // never come: leave now. The kernel sends it when the calling *thread*
  // exits; run() keeps that thread waiting until the child is reaped.
  if (::syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    report_and_exit(plan, Stage::signals, errno);
  if (::syscall(SYS_getppid) != plan.parent) report_and_exit(plan, Stage::signals, ESRCH);

  // Own process group first: the timeout signals the group, and everything
  // the command starts stays in it.
  if (plan.group == ProcessGroup::own_group) {
    if (::syscall(SYS_setpgid, 0, 0) != 0) report_and_exit(plan, Stage::process_group, errno);
  } else if (plan.group == ProcessGroup::own_session) {
    if (::syscall(SYS_setsid) < 0) report_and_exit(plan, Stage::process_group, errno);
  }

  // The network namespace and nothing else: the mount namespace stays the
  // caller's, so a mount the command makes is visible to the host. Entered
  // before chdir and stdio so that nothing opened later belongs to the old one.
  if (plan.netns_fd >= 0 && ::syscall(SYS_setns, plan.netns_fd, CLONE_NEWNET) != 0)
    report_and_exit(plan, Stage::setns, errno);

  if (plan.cwd != nullptr && ::syscall(SYS_chdir, plan.cwd) != 0)
    report_and_exit(plan, Stage::chdir, errno);

  // The sources are all >= 3 (the caller made sure), so no dup3 below can
  // overwrite a source still to be used, and none equals its target (dup3
  // rejects that). dup3 clears close-on-exec on the copy.
  for (int target = 0; target < 3; ++target) {
    if (plan.stdio[target] < 0) continue;
    if (::syscall(SYS_dup3, plan.stdio[target], target, 0) < 0)
      report_and_exit(plan, Stage::stdio, errno);
  }

  if (int err = close_stray_fds(plan); err != 0) report_and_exit(plan, Stage::close_fds, err);

  // Unblock last: from here a pending or new signal has its default action
  // in this process only, and exec keeps the (empty) mask.
  static const uint64_t kEmptyMask[2] = {};
  if (::syscall(SYS_rt_sigprocmask, SIG_SETMASK, kEmptyMask, nullptr, _NSIG / 8) != 0)
    report_and_exit(plan, Stage::signals, errno);

  // execvp's rules: a candidate that does not exist is skipped; EACCES is
  // remembered and reported if nothing else runs; any other error stops.
  int err = ENOENT;
  bool saw_eacces = false;
  for (size_t i = 0; i < plan.candidate_count; ++i) {
    ::syscall(SYS_execve, plan.candidates[i], plan.argv, plan.envp);
    err = errno;
    if (err == EACCES) {
      saw_eacces = true;
      continue;
    }
    if (err == ENOENT || err == ENOTDIR || err == ESTALE || err == ENODEV || err == ETIMEDOUT)
      continue;
    break;
  }
  if (saw_eacces && (err == ENOENT || err == ENOTDIR || err == ESTALE || err == ENODEV ||
                     err == ETIMEDOUT || err == EACCES))
    err = EACCES;
  report_and_exit(plan, Stage::exec, err);
}

}  // namespace netns::spawn::detail
