// The caller's side: prepare, clone, read the report pipe, then one poll
// loop over stdin, stdout, stderr, the pidfd, the forwarded-signal fd and
// the deadline; reap with waitid(P_PIDFD).
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <optional>
#include <thread>

#include "child.hpp"
#include "clone.hpp"
#include "netns/error.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/spawn/spawn.hpp"
#include "netns_exec/spawn_testing.hpp"
#include "prepare.hpp"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

namespace netns::spawn {

namespace {

using Clock = std::chrono::steady_clock;
using detail::Prepared;

// Blocks every signal of the calling thread from construction on (saving
// the mask in the same call) and restores it on every way out of run().
class MaskGuard {
 public:
  MaskGuard() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved_);
  }
  ~MaskGuard() {
    if (!restored_) pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  // Back to the caller's mask now (nothing left for the destructor).
  void restore() {
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
    restored_ = true;
  }
  MaskGuard(const MaskGuard&) = delete;
  MaskGuard& operator=(const MaskGuard&) = delete;
  [[nodiscard]] const sigset_t& saved() const { return saved_; }

 private:
  sigset_t saved_;
  bool restored_ = false;
};

void append_bounded(CapturedOutput& out, const char* data, size_t n, size_t limit) {
  out.total_bytes += n;
  if (limit == 0) return;
  out.data.append(data, n);
  // Trim in bulk, not per read: keep at most twice the limit in between
  // (written so that a limit near SIZE_MAX cannot overflow).
  if (out.data.size() > limit && out.data.size() - limit > limit)
    out.data.erase(0, out.data.size() - limit);
}

void finish_output(CapturedOutput& out, size_t limit) {
  if (out.data.size() > limit) out.data.erase(0, out.data.size() - limit);
  out.truncated = out.total_bytes > out.data.size();
}

// Reads what is available now, at most `max_reads` buffers (a writer that
// never pauses cannot keep us here). Returns false at EOF (or a read error:
// the stream is over for us either way).
bool read_available(int fd, CapturedOutput& out, size_t limit, int max_reads = 16) {
  char buf[65536];
  for (int reads = 0; reads < max_reads; ++reads) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      append_bounded(out, buf, static_cast<size_t>(n), limit);
      if (static_cast<size_t>(n) < sizeof buf) return true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN;
  }
  return true;
}

int send_signal(int pidfd, pid_t pid, ProcessGroup group, int sig) {
  // The child is not reaped before the last signal is sent, so its pid (and
  // so its process group ID) cannot have been reused.
  if (group != ProcessGroup::inherit) return ::kill(-pid, sig);
  return static_cast<int>(::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0));
}

timespec to_timespec(Clock::duration d) {
  if (d < Clock::duration::zero()) d = Clock::duration::zero();
  auto s = std::chrono::duration_cast<std::chrono::seconds>(d);
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d - s);
  return timespec{static_cast<time_t>(s.count()), static_cast<long>(ns.count())};
}

// Blocks until the (already exited or killed) child can be reaped. Returns
// 0 or the errno of waitid.
int reap(int pidfd, siginfo_t& info) {
  for (;;) {
    info = siginfo_t{};
    if (::waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(pidfd), &info,
                 WEXITED | __WALL) == 0)
      return 0;
    if (errno != EINTR) return errno;
  }
}

// PIDFD_GET_INFO (Linux 6.15): the exit status stays readable through the
// pidfd after someone else reaped the child — the kernel itself, when the
// host ignores SIGCHLD, or a waitpid(-1) elsewhere in the process.
struct PidfdInfo {
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  int32_t exit_code;
};
static_assert(sizeof(PidfdInfo) == 64);  // PIDFD_INFO_SIZE_VER0
constexpr uint64_t kPidfdInfoExit = 1U << 3;
constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);

// The wait status from the pidfd, or nullopt (older kernel, no exit yet).
std::optional<int> exit_status_from_pidfd(int pidfd) {
  PidfdInfo info{};
  info.mask = kPidfdInfoExit;
  if (::ioctl(pidfd, kPidfdGetInfo, &info) != 0 || (info.mask & kPidfdInfoExit) == 0)
    return std::nullopt;
  return info.exit_code;
}

Outcome outcome_of(int wait_error, const siginfo_t& info, int pidfd) {
  if (wait_error == ECHILD) {
    // Exec succeeded (the report pipe said so): whatever else happens, this
    // must not read as "nothing ran".
    std::optional<int> status = exit_status_from_pidfd(pidfd);
    if (!status) return Outcome::status_lost();
    if (WIFEXITED(*status)) return Outcome::exited(WEXITSTATUS(*status));
    return Outcome::signalled(WTERMSIG(*status));
  }
  if (wait_error != 0) return Outcome::status_lost();
  if (info.si_code == CLD_EXITED) return Outcome::exited(info.si_status);
  return Outcome::signalled(info.si_status);
}

// A child that outlives SIGKILL (stuck in the kernel, e.g. in a hung krbd
// request) is reaped by a detached thread once it finally dies, so the
// caller is not blocked and no zombie stays behind.
void reap_in_background(UniqueFd pidfd) {
  try {
    std::thread([fd = std::move(pidfd)]() mutable {
      siginfo_t info{};
      reap(fd.get(), info);
    }).detach();
  } catch (...) {
    // No thread: wait here after all rather than leak a zombie.
    siginfo_t info{};
    reap(pidfd.get(), info);
  }
}

class Runner {
 public:
  Runner(const Command& command, CloneMethod method) : cmd_(command), method_(method) {}

  Result run() {
    auto start = Clock::now();
    Result result;
    const bool shares_memory = detail::shares_memory(method_);
    detail::prepare(cmd_, prep_, !shares_memory);
    // Cancelled before the start: nothing may run, not even for the moment
    // the kill would take to arrive.
    if (cmd_.cancel_fd >= 0) {
      pollfd p{cmd_.cancel_fd, POLLIN, 0};
      if (::poll(&p, 1, 0) > 0) {
        result.outcome = Outcome::spawn_failed(Stage::prepare, ECANCELED);
        result.elapsed = Clock::now() - start;
        return result;
      }
    }
    // The stack is this thread's, kept for its next spawn: the child is done
    // with it when the clone returns (exec or exit), and a fresh mapping
    // would cost the mmap, the page faults and the munmap every time.
    detail::ChildStack* stack = shares_memory ? &detail::ChildStack::for_this_thread() : nullptr;

    // Block every signal across the clone: a handler of the caller must not
    // run in the child, which shares the caller's memory (the child resets
    // dispositions, then unblocks).
    MaskGuard mask;
    detail::Started started = detail::start_child(method_, detail::child_main, &prep_.plan, stack);
    // While we feed stdin, a reader that went away must give EPIPE, not kill
    // the caller with SIGPIPE; the signal stays pending on this thread and is
    // consumed below. Nothing to feed: the caller's own mask at once.
    if (cmd_.stdin_data) {
      sigset_t loop_mask = mask.saved();
      sigaddset(&loop_mask, SIGPIPE);
      pthread_sigmask(SIG_SETMASK, &loop_mask, nullptr);
    } else {
      mask.restore();
    }

    if (started.pid < 0) {
      result.outcome = Outcome::spawn_failed(Stage::clone, started.error);
      result.elapsed = Clock::now() - start;
      return result;
    }
    result.pid = started.pid;
    UniqueFd pidfd(started.pidfd);

    // The child's ends are the child's now.
    prep_.stdin_read.reset();
    prep_.stdout_write.reset();
    prep_.stderr_write.reset();
    prep_.devnull.reset();
    prep_.stdin_copy.reset();
    prep_.stdout_copy.reset();
    prep_.stderr_copy.reset();
    prep_.report_write.reset();

    if (std::optional<Outcome> failed = child_report(shares_memory)) {
      siginfo_t info{};
      reap(pidfd.get(), info);
      result.outcome = *failed;
      result.elapsed = Clock::now() - start;
      return result;
    }

    wait_loop(pidfd, started.pid, result);
    consume_sigpipe(mask.saved());
    result.elapsed = Clock::now() - start;
    return result;
  }

 private:
  // What the child said before exec, if anything: nullopt once exec is past
  // its point of no return (a later failure kills the new program, which
  // then reads as a signal, never as "nothing ran").
  std::optional<Outcome> child_report(bool shares_memory) {
    if (shares_memory) {
      // The vfork wait has ended: the child has exec'd or exited, so its
      // store (if any) is complete; no second wake-up through a pipe.
      int32_t stage = __atomic_load_n(&prep_.report.stage, __ATOMIC_ACQUIRE);
      if (stage == detail::ChildReport::kNone) return std::nullopt;
      return Outcome::spawn_failed(static_cast<Stage>(stage),
                                   __atomic_load_n(&prep_.report.error, __ATOMIC_RELAXED));
    }
    // Fork: after exec the pipe's write end is closed (close-on-exec): EOF.
    // Before it, the child wrote {stage, errno} and exited.
    detail::ChildReport report{};
    ssize_t n;
    do {
      n = ::read(prep_.report_read.get(), &report, sizeof report);
    } while (n < 0 && errno == EINTR);
    prep_.report_read.reset();
    if (n == 0) return std::nullopt;
    if (n != static_cast<ssize_t>(sizeof report)) return Outcome::spawn_failed(Stage::exec, EIO);
    return Outcome::spawn_failed(static_cast<Stage>(report.stage), report.error);
  }

  void wait_loop(UniqueFd& pidfd, pid_t pid, Result& result) {
    const size_t limit = cmd_.output_limit;
    std::string_view input =
        cmd_.stdin_data ? std::string_view(*cmd_.stdin_data) : std::string_view();
    if (prep_.stdin_write && input.empty()) prep_.stdin_write.reset();  // EOF at once

    // finishing: a stop was asked for under finish_grace; the command is
    // left alone until the grace ends, and an exit meanwhile is its own.
    enum class Phase { running, finishing, terminating, killed } phase = Phase::running;
    bool cancelled = false;
    bool cancel_seen = false;
    const bool has_deadline = cmd_.timeout > std::chrono::nanoseconds::zero();
    Clock::time_point deadline =
        has_deadline ? Clock::now() + std::chrono::duration_cast<Clock::duration>(cmd_.timeout)
                     : Clock::time_point::max();
    const auto grace = std::chrono::duration_cast<Clock::duration>(
        std::max(cmd_.kill_grace, std::chrono::nanoseconds::zero()));
    int last_signal = 0;
    bool exited = false;
    // A signal fd that reports an error (closed, not pollable) is dropped,
    // or it would wake every poll at once.
    bool poll_signals = cmd_.forward_signal_fd >= 0;

    while (!exited) {
      pollfd fds[6];
      nfds_t count = 0;
      int i_in = -1, i_out = -1, i_err = -1, i_sig = -1, i_cancel = -1;
      if (prep_.stdin_write) {
        i_in = static_cast<int>(count);
        fds[count++] = pollfd{prep_.stdin_write.get(), POLLOUT, 0};
      }
      if (prep_.stdout_read) {
        i_out = static_cast<int>(count);
        fds[count++] = pollfd{prep_.stdout_read.get(), POLLIN, 0};
      }
      if (prep_.stderr_read) {
        i_err = static_cast<int>(count);
        fds[count++] = pollfd{prep_.stderr_read.get(), POLLIN, 0};
      }
      if (poll_signals) {
        i_sig = static_cast<int>(count);
        fds[count++] = pollfd{cmd_.forward_signal_fd, POLLIN, 0};
      }
      if (cmd_.cancel_fd >= 0 && !cancelled && !cancel_seen) {
        i_cancel = static_cast<int>(count);
        fds[count++] = pollfd{cmd_.cancel_fd, POLLIN, 0};
      }
      const nfds_t i_pid = count;
      fds[count++] = pollfd{pidfd.get(), POLLIN, 0};

      timespec ts{};
      timespec* tsp = nullptr;
      if (deadline != Clock::time_point::max()) {
        ts = to_timespec(deadline - Clock::now());
        tsp = &ts;
      }
      int r = ::ppoll(fds, count, tsp, nullptr);
      if (r < 0 && errno != EINTR) {
        // Cannot wait properly any more: end the command rather than hang.
        send_signal(pidfd.get(), pid, cmd_.group, SIGKILL);
        last_signal = SIGKILL;
        phase = Phase::killed;
        break;
      }
      if (r > 0) {
        if (i_in >= 0 && fds[i_in].revents != 0) write_stdin(input, result);
        if (i_out >= 0 && fds[i_out].revents != 0 &&
            !read_available(prep_.stdout_read.get(), result.out, limit))
          prep_.stdout_read.reset();
        if (i_err >= 0 && fds[i_err].revents != 0 &&
            !read_available(prep_.stderr_read.get(), result.err, limit))
          prep_.stderr_read.reset();
        if (i_sig >= 0 && (fds[i_sig].revents & POLLIN) != 0) forward_signal(pidfd.get(), pid);
        if (i_sig >= 0 && (fds[i_sig].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0)
          poll_signals = false;
        if (fds[i_pid].revents != 0) exited = true;
        // An exit in the same round wins: the command finished by itself.
        // Any event counts as cancel (POLLHUP: the caller closed its end of
        // a pipe; POLLNVAL: it closed the descriptor itself).
        if (!exited && i_cancel >= 0 && fds[i_cancel].revents != 0 && cmd_.finish_grace) {
          // Polled once: a readable descriptor stays readable.
          cancel_seen = true;
          if (phase == Phase::running) {
            cancelled = true;
            result.stop = StopRequest::cancel;
            phase = Phase::finishing;
            deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::max(
                                          *cmd_.finish_grace, std::chrono::nanoseconds::zero()));
          }
        } else if (!exited && i_cancel >= 0 && fds[i_cancel].revents != 0) {
          result.stop = StopRequest::cancel;
          send_signal(pidfd.get(), pid, cmd_.group, SIGKILL);
          cancelled = true;
          last_signal = SIGKILL;
          phase = Phase::killed;
          // Wait for the kill to take effect as after a timeout's SIGKILL.
          deadline = Clock::now() + std::max(grace, Clock::duration(std::chrono::seconds(1)));
        }
      }
      if (exited) break;

      if (Clock::now() >= deadline) {
        if (phase == Phase::running && cmd_.finish_grace) {
          // The timeout under finish_grace: the same wait as for a cancel.
          result.stop = StopRequest::timeout;
          phase = Phase::finishing;
          deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::max(
                                        *cmd_.finish_grace, std::chrono::nanoseconds::zero()));
        } else if (phase == Phase::running || phase == Phase::finishing) {
          if (result.stop == StopRequest::none) result.stop = StopRequest::timeout;
          send_signal(pidfd.get(), pid, cmd_.group, SIGTERM);
          last_signal = SIGTERM;
          phase = Phase::terminating;
          deadline = Clock::now() + grace;
        } else if (phase == Phase::terminating) {
          send_signal(pidfd.get(), pid, cmd_.group, SIGKILL);
          last_signal = SIGKILL;
          phase = Phase::killed;
          deadline = Clock::now() + std::max(grace, Clock::duration(std::chrono::seconds(1)));
        } else {
          // SIGKILL did not end it within the grace: it is stuck in the
          // kernel. Report the timeout now; reap when it dies.
          reap_in_background(std::move(pidfd));
          result.outcome =
              cancelled ? Outcome::cancelled(last_signal) : Outcome::timed_out(last_signal);
          close_outputs(result, limit);
          return;
        }
      }
    }

    const bool own_exit = phase == Phase::running || phase == Phase::finishing;
    if (!own_exit) {
      // The leader is gone but unreaped, so its pgid is still ours: end any
      // member that survived SIGTERM.
      if (cmd_.group != ProcessGroup::inherit && last_signal != SIGKILL) {
        ::kill(-pid, SIGKILL);
      }
    }
    // Everything the child wrote is in the pipes now; read it without
    // waiting for EOF, which a daemonized grandchild holding the pipe (such
    // as ceph-fuse) would postpone forever.
    close_outputs(result, limit);

    siginfo_t info{};
    int wait_error = reap(pidfd.get(), info);
    result.outcome = own_exit    ? outcome_of(wait_error, info, pidfd.get())
                     : cancelled ? Outcome::cancelled(last_signal)
                                 : Outcome::timed_out(last_signal);
  }

  void close_outputs(Result& result, size_t limit) {
    // The child's own output is at most a pipe buffer (64 KiB by default,
    // up to 1 MiB if raised) per stream; whatever a surviving grandchild
    // keeps writing after that is not the command's.
    constexpr int kDrainReads = 20;
    if (prep_.stdout_read) read_available(prep_.stdout_read.get(), result.out, limit, kDrainReads);
    if (prep_.stderr_read) read_available(prep_.stderr_read.get(), result.err, limit, kDrainReads);
    prep_.stdout_read.reset();
    prep_.stderr_read.reset();
    if (prep_.stdin_write) {
      result.stdin_complete = written_ == (cmd_.stdin_data ? cmd_.stdin_data->size() : 0);
      prep_.stdin_write.reset();
    }
    finish_output(result.out, limit);
    finish_output(result.err, limit);
  }

  void write_stdin(std::string_view input, Result& result) {
    while (written_ < input.size()) {
      ssize_t n =
          ::write(prep_.stdin_write.get(), input.data() + written_, input.size() - written_);
      if (n > 0) {
        written_ += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      if (n < 0 && errno == EPIPE) got_epipe_ = true;
      // The reader is gone (or the pipe broke): the rest cannot be delivered.
      result.stdin_complete = false;
      prep_.stdin_write.reset();
      return;
    }
    prep_.stdin_write.reset();  // all written: EOF
  }

  void forward_signal(int pidfd, pid_t pid) {
    signalfd_siginfo info{};
    ssize_t n = ::read(cmd_.forward_signal_fd, &info, sizeof info);
    if (n != static_cast<ssize_t>(sizeof info)) return;
    // A child in our own process group got a signal the kernel sent to the
    // whole group (a terminal's Ctrl-C, Ctrl-backslash, hangup) already: forwarding
    // it would deliver it twice.
    if (cmd_.group == ProcessGroup::inherit && info.ssi_code == SI_KERNEL) return;
    send_signal(pidfd, pid, cmd_.group, static_cast<int>(info.ssi_signo));
  }

  // A write that got EPIPE left a SIGPIPE pending on this thread; take it
  // back, unless the caller had SIGPIPE blocked and pending before (then
  // it is theirs: standard signals do not queue).
  void consume_sigpipe(const sigset_t& saved) {
    if (!got_epipe_ || sigismember(&saved, SIGPIPE)) return;
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    timespec zero{};
    while (::sigtimedwait(&pipe_only, nullptr, &zero) < 0 && errno == EINTR) {}
  }

  const Command& cmd_;
  CloneMethod method_;
  Prepared prep_;
  size_t written_ = 0;
  bool got_epipe_ = false;
};

}  // namespace

Result run(const Command& command, CloneMethod method) {
  Runner runner(command, method);
  return runner.run();
}

Result run(const Command& command) { return run(command, CloneMethod::automatic); }

}  // namespace netns::spawn
