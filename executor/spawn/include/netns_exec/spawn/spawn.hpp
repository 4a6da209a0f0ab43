#pragma once
// The spawn engine: runs one command, optionally inside a network namespace,
// without copying the caller's address space, and waits for it.
//
//   glibc's clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD) on a small private
//   stack (the calling thread's, reused), on every architecture and kernel;
//   fork only in ThreadSanitizer builds and the engine's own benchmarks
//   (design/adr/0009). The child's code is the same either way; it shares
//   the caller's memory until execve, so the cost does not grow with the
//   caller's RSS, and it only makes async-signal-safe system calls:
//     signals     every disposition back to SIG_DFL, standard and real-time,
//                 ignored ones included (the caller's, e.g. a Go runtime's,
//                 are not the command's); PR_SET_PDEATHSIG (below)
//     group       setpgid(0, 0) or setsid() (the timeout kills the group)
//     setns       setns(fd, CLONE_NEWNET), only when a namespace fd is given;
//                 no other namespace is touched, so a mount the command makes
//                 is visible to the caller
//     chdir       only when a directory is given
//     stdio       dup2 of the prepared descriptors onto 0, 1, 2
//     close_fds   every other descriptor closed (or marked close-on-exec)
//     mask        the signal mask emptied, last, so nothing is delivered early
//     exec        execve of each PATH candidate, built before the clone
//   A failure before exec comes back as {stage, errno}: stored in memory the
//   caller shares (read when the clone returns), or over a close-on-exec pipe
//   from a forked child (TSan builds).
//
// The caller's thread waits on one poll(2) over the output pipes, the stdin
// pipe, the child's pidfd, the caller's cancel descriptor and the deadline.
// On timeout: SIGTERM to the child's process group, a grace period,
// SIGKILL, then the child is reaped with waitid(P_PIDFD): no SIGCHLD handler
// is needed or installed.
//
// What the library requires of its host process, and what it does not:
//   - The child dies with the calling thread (PR_SET_PDEATHSIG(SIGKILL), set
//     in the child, which leaves at once, before exec, if its caller is
//     already gone: spawn_failed(signals, ESRCH)).
//     run() keeps that thread until the child is reaped, so this only fires
//     when the whole caller dies (SIGKILL, Go's CommandContext on the CLI).
//     Descendants the command forks do not inherit it.
//   - SIGCHLD may be ignored and another thread may waitpid(-1): the child is
//     an ordinary SIGCHLD child (execve resets any other exit signal to
//     SIGCHLD, so no clone flag avoids that), and whoever reaps it first
//     takes the status. run() then reads it from the pidfd (PIDFD_GET_INFO,
//     Linux 6.15); on older kernels the outcome is Outcome::status_lost
//     (255): never "spawn failed"/125, because the command did run.
//   - Descendants that leave the command's process group (setsid) are not
//     found by the timeout here: that needs a child subreaper, which is the
//     host's process-wide choice (the CLI's `run` is one; see
//     netns_exec/spawn/orphans.hpp).
//
// Thread-safe: no shared mutable state; any number of threads may spawn at
// once. The calling thread's signal mask is restored before run() returns.
//
// Kernel features used (tested for, never inferred from a version): pidfds
// from clone (CLONE_PIDFD), poll on a pidfd and waitid(P_PIDFD) — Linux 5.4
// and later; a kernel without them gives spawn_failed(clone, EINVAL).
// close_range(CLOSE_RANGE_CLOEXEC) is used where present; PIDFD_GET_INFO
// (6.15) where the status was reaped elsewhere (above).
//
// Pass-through (nsenter-style) callers on a terminal: use
// ProcessGroup::inherit, or a command that reads the terminal from its own
// background process group is stopped by SIGTTIN.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns/api.h"

namespace netns::spawn {

// Where the spawn failed. From signals to exec, the child's order.
enum class Stage : uint8_t {
  prepare,        // in the caller, before the clone (pipes, /dev/null, stack)
  clone,          // clone itself
  signals,        // resetting dispositions and the mask
  process_group,  // setpgid / setsid
  setns,          // setns(fd, CLONE_NEWNET)
  chdir,
  stdio,      // dup2 onto 0, 1, 2
  close_fds,  // close_range
  exec,       // execve of every candidate failed
  wait,       // unused since exec-then-lost is Outcome::status_lost;
              // kept so that stage numbers stay stable
};
NETNS_EXEC_API const char* stage_name(Stage stage) noexcept;  // "setns", "exec", ...

// What became of the command: a value, never an exception.
struct NETNS_EXEC_API Outcome {
  // cancelled: the caller's cancel_fd became readable and the command's
  // process group was killed with SIGKILL (`signal`). Like exec.CommandContext
  // in Go, it counts as killed by that signal: shell_exit_code() 128+9 = 137.
  // status_lost: the command ran (exec succeeded) but its exit status could
  // not be collected: someone else in the host process reaped it (SIGCHLD
  // ignored, waitpid(-1)) on a kernel without PIDFD_GET_INFO (< 6.15).
  // shell_exit_code() 255, never 125: something ran.
  enum class Kind : uint8_t { exited, signalled, timed_out, spawn_failed, cancelled, status_lost };

  Kind kind = Kind::spawn_failed;
  int exit_code = 0;             // exited: the command's exit status
  int signal = 0;                // signalled: the signal; timed_out: the signal that ended it
  Stage stage = Stage::prepare;  // spawn_failed: where
  int error = 0;                 // spawn_failed: errno

  static Outcome exited(int code) noexcept;
  static Outcome signalled(int sig) noexcept;
  static Outcome timed_out(int sig) noexcept;
  static Outcome spawn_failed(Stage stage, int err) noexcept;
  static Outcome cancelled(int sig) noexcept;
  static Outcome status_lost() noexcept;

  // exited(0)
  [[nodiscard]] bool success() const noexcept { return kind == Kind::exited && exit_code == 0; }

  // The exit code a shell or nsenter would give (SPEC): the command's own,
  // 128+N for signal N (cancelled included: 137), 124 timed out, 127 not
  // found, 126 found but not executable, 125 the executor failed (setns,
  // stdio, clone, ...) and nothing ran, 255 ran but status lost.
  [[nodiscard]] int shell_exit_code() const noexcept;

  // "exited with code 3", "killed by signal 9 (SIGKILL)", "timed out (killed
  // by SIGTERM)", "cancelled (killed by signal 9 (SIGKILL))",
  // "setns: Invalid argument (EINVAL)".
  [[nodiscard]] std::string describe() const;

  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// What to do with the child's stdout or stderr.
enum class OutputMode : uint8_t {
  capture,  // a pipe read by the caller, bounded (Command::output_limit)
  inherit,  // the caller's own descriptor 1 or 2 (nsenter-style pass-through)
  discard,  // /dev/null
  fd,       // Command::stdout_fd / stderr_fd, a descriptor the caller owns
};

// What to do with the child's stdin when no stdin_data is given.
enum class InputMode : uint8_t {
  null,     // /dev/null (default)
  inherit,  // the caller's descriptor 0 (nsenter-style pass-through)
  fd,       // Command::stdin_fd, a descriptor the caller owns
};

// How the child relates to the caller's process group.
enum class ProcessGroup : uint8_t {
  own_group,    // setpgid(0, 0): the timeout kills the whole group (default)
  own_session,  // setsid(): also detached from the controlling terminal
  inherit,      // the caller's group: the timeout signals only the child
};

inline constexpr size_t kDefaultOutputLimit = size_t{1} << 20;  // per stream

struct Command {
  // argv[0] is searched in PATH (the child's PATH from `env` when it sets
  // one, else the caller's, else a standard path) unless it contains a '/'.
  std::vector<std::string> argv;
  // The complete environment as "NAME=value" entries; nullopt: the caller's
  // environment (a snapshot taken before the clone).
  std::optional<std::vector<std::string>> env = std::nullopt;
  // A network-namespace descriptor, already validated by the caller; the
  // child enters it with setns(fd, CLONE_NEWNET). -1: stay in the caller's.
  // Not closed or changed by run().
  int netns_fd = -1;
  std::optional<std::string> cwd = std::nullopt;

  // Bytes written to the child's stdin (through a pipe, then EOF): the way to
  // hand over a secret without putting it on argv. When set, `stdin_mode` is
  // ignored.
  std::optional<std::string> stdin_data = std::nullopt;
  InputMode stdin_mode = InputMode::null;
  OutputMode stdout_mode = OutputMode::capture;
  OutputMode stderr_mode = OutputMode::capture;
  size_t output_limit = kDefaultOutputLimit;  // per captured stream; the tail is kept
  // With InputMode::fd / OutputMode::fd: descriptors the caller owns (a pipe,
  // a file, a socket, a pty), dup2'ed onto 0, 1, 2 in the child. run() does
  // not close, read, write or change them (not even O_NONBLOCK); the caller
  // may close them as soon as run() returns. Must be open (else
  // netns::Error(invalid_argument)); they may be 0, 1 or 2 themselves.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;

  // Zero or negative: no deadline.
  std::chrono::nanoseconds timeout{0};
  // After the timeout's SIGTERM, how long before SIGKILL.
  std::chrono::nanoseconds kill_grace = std::chrono::seconds(2);
  ProcessGroup group = ProcessGroup::own_group;

  // Optional: a signalfd owned by the caller (e.g. for SIGINT/SIGTERM, which
  // the caller has blocked). Every signal read from it while the command runs
  // is forwarded to the child's process group (to the child alone with
  // ProcessGroup::inherit). -1: none.
  int forward_signal_fd = -1;

  // Optional: a descriptor the caller owns, polled together with the child
  // (no thread, no timer). As soon as it is readable — a byte written, the
  // write end of a pipe closed, an eventfd signalled — the command's process
  // group (the child alone with ProcessGroup::inherit) is killed with SIGKILL
  // and the outcome is Outcome::cancelled(SIGKILL), unless the command had
  // already exited. Already readable when run() is called: nothing is
  // started, the outcome is spawn_failed(Stage::prepare, ECANCELED) (125).
  // run() never reads from it: it stays readable, so one descriptor can
  // cancel many runs. -1: none. Must be open when given.
  int cancel_fd = -1;

  // Optional: let a command that has started finish what it is doing. With
  // a value, neither cancel_fd nor the timeout signals the command at once:
  // it is given this long to exit by itself (a kernel step such as rbd map
  // that must not be cut off half-way), then SIGTERM, kill_grace, SIGKILL.
  // A command that exits within it has its own outcome (exited, signalled);
  // Result::stop says that a stop was asked for. nullopt (the default):
  // cancel_fd kills at once with SIGKILL, the timeout sends SIGTERM at once.
  std::optional<std::chrono::nanoseconds> finish_grace = std::nullopt;
};

// Whether the caller asked the command to stop while it ran (set even when,
// under Command::finish_grace, it then finished by itself).
enum class StopRequest : uint8_t { none, timeout, cancel };

struct CapturedOutput {
  std::string data;          // at most output_limit bytes: the last ones written
  uint64_t total_bytes = 0;  // everything the command wrote
  bool truncated = false;    // total_bytes > data.size()
};

struct Result {
  Outcome outcome;
  CapturedOutput out;  // empty unless OutputMode::capture
  CapturedOutput err;
  pid_t pid = -1;  // the child's pid (reaped), -1 when it never started
  std::chrono::nanoseconds elapsed{0};
  // Whether every byte of stdin_data was written (false when the command
  // exited or closed stdin early).
  bool stdin_complete = true;
  // The first stop asked for while the command ran (timeout or cancel_fd).
  StopRequest stop = StopRequest::none;
};

// Runs the command and waits for it. Throws netns::Error(invalid_argument)
// only for a malformed Command (empty argv, a NUL byte in an argument); every
// system failure is an Outcome::spawn_failed.
NETNS_EXEC_API Result run(const Command& command);

}  // namespace netns::spawn
