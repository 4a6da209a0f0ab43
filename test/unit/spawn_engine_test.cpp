// The spawn engine without namespaces: exit codes, signals, timeouts, output
// bounds, stdin, environment, PATH search and the failure stages.
#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "netns/error.hpp"
#include "netns/test/caller_signals.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/spawn/spawn.hpp"
#include "netns_exec/spawn_testing.hpp"

namespace netns::spawn {
namespace {

using namespace std::chrono_literals;
using test::TempDir;

Command sh(const std::string& script) {
  Command c;
  c.argv = {"/bin/sh", "-c", script};
  return c;
}

TEST(SpawnEngine, ExitCodeAndOutputAreSeparate) {
  Result r = run(sh("echo out; echo err >&2; exit 3"));
  EXPECT_EQ(r.outcome, Outcome::exited(3)) << r.outcome.describe();
  EXPECT_EQ(r.out.data, "out\n");
  EXPECT_EQ(r.err.data, "err\n");
  EXPECT_FALSE(r.out.truncated);
  EXPECT_EQ(r.outcome.shell_exit_code(), 3);
  EXPECT_GT(r.pid, 0);
}

TEST(SpawnEngine, SuccessIsExitedZero) {
  Result r = run(Command{.argv = {"true"}});
  EXPECT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(r.outcome.shell_exit_code(), 0);
}

TEST(SpawnEngine, SignalIsReportedAs128PlusN) {
  Result r = run(sh("kill -USR1 $$"));
  EXPECT_EQ(r.outcome, Outcome::signalled(SIGUSR1)) << r.outcome.describe();
  EXPECT_EQ(r.outcome.shell_exit_code(), 128 + SIGUSR1);
  EXPECT_NE(r.outcome.describe().find("SIGUSR1"), std::string::npos) << r.outcome.describe();
}

TEST(SpawnEngine, CommandNotFoundIs127) {
  Result r = run(Command{.argv = {"netns-spawn-test-no-such-command"}});
  EXPECT_EQ(r.outcome.kind, Outcome::Kind::spawn_failed);
  EXPECT_EQ(r.outcome.stage, Stage::exec);
  EXPECT_EQ(r.outcome.error, ENOENT);
  EXPECT_EQ(r.outcome.shell_exit_code(), 127);
  EXPECT_NE(r.outcome.describe().find("not found"), std::string::npos) << r.outcome.describe();

  Result abs = run(Command{.argv = {"/nonexistent/dir/cmd"}});
  EXPECT_EQ(abs.outcome.shell_exit_code(), 127) << abs.outcome.describe();
}

TEST(SpawnEngine, NotExecutableIs126) {
  TempDir dir;
  std::string file = dir / "script";
  std::ofstream(file) << "#!/bin/sh\nexit 0\n";
  ::chmod(file.c_str(), 0644);
  Result r = run(Command{.argv = {file}});
  EXPECT_EQ(r.outcome, Outcome::spawn_failed(Stage::exec, EACCES)) << r.outcome.describe();
  EXPECT_EQ(r.outcome.shell_exit_code(), 126);

  // Found through PATH but not executable: EACCES wins over later ENOENTs.
  Result via_path = run(Command{
      .argv = {"script"}, .env = std::vector<std::string>{"PATH=" + dir.path() + ":/nonexistent"}});
  EXPECT_EQ(via_path.outcome.shell_exit_code(), 126) << via_path.outcome.describe();
}

TEST(SpawnEngine, ChdirFailureIsReportedWithItsStage) {
  Command c{.argv = {"true"}};
  c.cwd = "/nonexistent-netns-spawn-dir";
  Result r = run(c);
  EXPECT_EQ(r.outcome, Outcome::spawn_failed(Stage::chdir, ENOENT)) << r.outcome.describe();
  EXPECT_EQ(r.outcome.shell_exit_code(), 125);
}

TEST(SpawnEngine, SetnsWithANonNamespaceFdFailsAt125) {
  test::TempDir dir;
  Command c{.argv = {"true"}};
  int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  c.netns_fd = fd;
  Result r = run(c);
  ::close(fd);
  EXPECT_EQ(r.outcome, Outcome::spawn_failed(Stage::setns, EINVAL)) << r.outcome.describe();
  EXPECT_EQ(r.outcome.shell_exit_code(), 125);
}

TEST(SpawnEngine, CwdIsApplied) {
  TempDir dir;
  Command c{.argv = {"pwd"}};
  c.cwd = dir.path();
  Result r = run(c);
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(r.out.data, dir.path() + "\n");
}

TEST(SpawnEngine, StdinDataIsDelivered) {
  Command c{.argv = {"cat"}};
  c.stdin_data = "secret-key-value\n";
  Result r = run(c);
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(r.out.data, "secret-key-value\n");
  EXPECT_TRUE(r.stdin_complete);
}

TEST(SpawnEngine, LargeStdinIsDeliveredThroughPoll) {
  Command c{.argv = {"wc", "-c"}};
  c.stdin_data = std::string(3 << 20, 'x');
  Result r = run(c);
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(std::stoul(r.out.data), 3u << 20);
}

TEST(SpawnEngine, StdinReaderThatExitsEarlyDoesNotKillTheCaller) {
  Command c = sh("exec 0<&-; exit 0");
  c.stdin_data = std::string(8 << 20, 'x');
  Result r = run(c);
  EXPECT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_FALSE(r.stdin_complete);
  sigset_t pending;
  sigpending(&pending);
  EXPECT_FALSE(sigismember(&pending, SIGPIPE));
}

TEST(SpawnEngine, NoStdinDataMeansDevNull) {
  Result r = run(Command{.argv = {"cat"}});
  EXPECT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(r.out.data, "");
}

TEST(SpawnEngine, EnvironmentIsExactlyTheExplicitOne) {
  ::setenv("NETNS_SPAWN_TEST_LEAK", "leaked", 1);
  Command c{.argv = {"/usr/bin/env"}};
  c.env = std::vector<std::string>{"A=1", "B=two words"};
  Result r = run(c);
  ::unsetenv("NETNS_SPAWN_TEST_LEAK");
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(r.out.data, "A=1\nB=two words\n");
}

TEST(SpawnEngine, DefaultEnvironmentIsTheCallers) {
  ::setenv("NETNS_SPAWN_TEST_INHERIT", "yes", 1);
  Result r = run(sh("echo $NETNS_SPAWN_TEST_INHERIT"));
  ::unsetenv("NETNS_SPAWN_TEST_INHERIT");
  EXPECT_EQ(r.out.data, "yes\n");
}

TEST(SpawnEngine, OutputFloodIsBoundedTailKeptAndFlagged) {
  Command c = sh("head -c 5000000 /dev/zero | tr '\\0' a; echo END; head -c 3000000 /dev/zero >&2");
  c.output_limit = 1 << 20;
  Result r = run(c);
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(r.out.data.size(), size_t{1} << 20);
  EXPECT_TRUE(r.out.truncated);
  EXPECT_EQ(r.out.total_bytes, 5000000u + 4u);
  EXPECT_EQ(r.out.data.substr(r.out.data.size() - 4), "END\n");
  EXPECT_TRUE(r.err.truncated);
  EXPECT_EQ(r.err.data.size(), size_t{1} << 20);
  EXPECT_EQ(r.err.total_bytes, 3000000u);
}

TEST(SpawnEngine, DiscardedOutputIsNotCaptured) {
  Command c = sh("echo out; echo err >&2");
  c.stdout_mode = OutputMode::discard;
  c.stderr_mode = OutputMode::discard;
  Result r = run(c);
  EXPECT_TRUE(r.outcome.success());
  EXPECT_EQ(r.out.data, "");
  EXPECT_EQ(r.err.total_bytes, 0u);
}

TEST(SpawnEngine, TimeoutKillsTheWholeProcessGroup) {
  TempDir dir;
  std::string pidfile = dir / "grandchild.pid";
  // The grandchild ignores nothing: SIGTERM to the group ends it. The child
  // itself traps TERM to show the grace period is used, then exits.
  Command c = sh("sleep 1000 & echo $! > " + pidfile + "; wait");
  c.timeout = 300ms;
  c.kill_grace = 120s;  // waiting it out would be far past the limit below
  auto start = std::chrono::steady_clock::now();
  Result r = run(c);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.outcome.kind, Outcome::Kind::timed_out) << r.outcome.describe();
  EXPECT_EQ(r.outcome.shell_exit_code(), 124);
  EXPECT_LT(took, test::scaled(2s));
  std::ifstream in(pidfile);
  pid_t grandchild = 0;
  in >> grandchild;
  ASSERT_GT(grandchild, 0);
  // Gone (reaped by init or being reaped): no longer running.
  EXPECT_TRUE(test::wait_until([&] { return test::process_gone(grandchild); }, 5s));
  // The child itself was reaped by run(): no zombie left.
  EXPECT_NE(::access(("/proc/" + std::to_string(r.pid)).c_str(), F_OK), 0);
}

TEST(SpawnEngine, ADaemonHoldingTheOutputPipesDoesNotHoldTheCaller) {
  // Like ceph-fuse: the command forks a daemon that keeps stdout/stderr
  // open, prints, and exits. run() returns with the command, not the daemon.
  TempDir dir;
  std::string pidfile = dir / "daemon.pid";
  Command c =
      sh("sleep 30 & echo $! > " + pidfile + "; echo ceph-fuse[$!]: starting fuse >&2; exit 0");
  c.timeout = 20s;
  auto start = std::chrono::steady_clock::now();
  Result r = run(c);
  auto took = std::chrono::steady_clock::now() - start;
  pid_t daemon = 0;
  std::ifstream(pidfile) >> daemon;
  bool daemon_alive = daemon > 0 && ::kill(daemon, 0) == 0;
  if (daemon > 0) ::kill(daemon, SIGKILL);
  EXPECT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_LT(took, test::scaled(5s));
  EXPECT_NE(r.err.data.find("starting fuse"), std::string::npos) << r.err.data;
  EXPECT_TRUE(daemon_alive) << "a normal exit must not kill what the command left running";
}

TEST(SpawnEngine, TimeoutEscalatesToSigkillAfterTheGrace) {
  Command c = sh("trap '' TERM; while :; do sleep 0.05; done");
  c.timeout = 200ms;
  c.kill_grace = 300ms;
  auto start = std::chrono::steady_clock::now();
  Result r = run(c);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.outcome, Outcome::timed_out(SIGKILL)) << r.outcome.describe();
  EXPECT_GE(took, 450ms);
  EXPECT_LT(took, test::scaled(3s));
}

TEST(SpawnEngine, ChildHasItsOwnProcessGroupByDefault) {
  Result r = run(sh("ps -o pgid= -p $$; echo $$"));
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe();
  std::istringstream in(r.out.data);
  pid_t pgid = 0, pid = 0;
  in >> pgid >> pid;
  EXPECT_EQ(pgid, pid);
  EXPECT_NE(pgid, ::getpgrp());
}

// Which dispositions the command sees, pinned: the caller ignores a standard
// and a real-time signal, handles one and blocks one; with every way of
// starting the child the command starts with none of it (every signal
// SIG_DFL, an empty mask), as a fresh process would.
TEST(SpawnEngine, SignalMaskAndDispositionsAreReset) {
  test::CallerSignals caller;
  std::vector<Result> results;
  for (CloneMethod m : {CloneMethod::automatic, CloneMethod::clone, CloneMethod::fork})
    results.push_back(
        run(Command{.argv = {"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"}}, m));
  // The control: this process itself has what it set.
  const std::string own = test::read_text("/proc/self/status");
  const sigset_t after = caller.restore();
  EXPECT_NE(own.find(test::CallerSignals::ignored_line()), std::string::npos) << own;
  for (const Result& r : results) {
    ASSERT_TRUE(r.outcome.success()) << r.outcome.describe();
    EXPECT_EQ(r.out.data, test::kDefaultSignalState);
  }
  // And the caller's own mask is what it was.
  EXPECT_TRUE(sigismember(&after, SIGUSR2));
  EXPECT_FALSE(sigismember(&after, SIGPIPE));
}

TEST(SpawnEngine, ACallerIgnoringSigchldStillGetsTheExitStatusNever125) {
  // With SIGCHLD ignored the kernel reaps children by itself. The pidfd
  // still has the status (Linux 6.15); on an older kernel the outcome is
  // status_lost (255): never 125, which would say nothing ran. Field 38 of
  // the command's stat is its exit signal: execve resets whatever clone
  // gave it to SIGCHLD (17), so a clone exit signal cannot avoid the reap.
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  struct sigaction old {};
  ::sigaction(SIGCHLD, &ign, &old);
  Result r = run(sh("echo still-captured; cut -d' ' -f38 /proc/$$/stat; exit 7"));
  ::sigaction(SIGCHLD, &old, nullptr);
  EXPECT_TRUE(r.outcome == Outcome::exited(7) || r.outcome == Outcome::status_lost())
      << r.outcome.describe();
  EXPECT_NE(r.outcome.shell_exit_code(), 125);
  EXPECT_EQ(r.out.data, "still-captured\n17\n");
}

TEST(SpawnEngine, EveryCloneMethodWorks) {
  for (CloneMethod m : {CloneMethod::automatic, CloneMethod::clone, CloneMethod::fork}) {
    Result r = run(sh("echo hi; exit 4"), m);
    EXPECT_EQ(r.outcome, Outcome::exited(4)) << static_cast<int>(m) << r.outcome.describe();
    EXPECT_EQ(r.out.data, "hi\n");
    Result missing = run(Command{.argv = {"/nonexistent-cmd"}}, m);
    EXPECT_EQ(missing.outcome.shell_exit_code(), 127) << static_cast<int>(m);
  }
}

TEST(SpawnEngine, ForwardedSignalReachesTheChild) {
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  int sfd = ::signalfd(-1, &set, SFD_CLOEXEC);
  ASSERT_GE(sfd, 0);
  Command c{.argv = {"sleep", "30"}};
  c.forward_signal_fd = sfd;
  c.timeout = 10s;
  // Sent once the command runs (a child of this thread), not after a sleep.
  std::thread sender([] {
    EXPECT_TRUE(test::wait_until([] { return !test::children_of(::getpid()).empty(); }, 10s))
        << "the command never started";
    ::kill(::getpid(), SIGUSR1);
  });
  Result r = run(c);
  sender.join();
  ::close(sfd);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  EXPECT_EQ(r.outcome, Outcome::signalled(SIGUSR1)) << r.outcome.describe();
}

TEST(SpawnEngine, AnUnusableSignalFdDoesNotSpinTheCaller) {
  Command c = sh("sleep 0.3");
  c.forward_signal_fd = 1000;  // not open
  clock_t cpu_before = ::clock();
  Result r = run(c);
  double cpu_seconds = static_cast<double>(::clock() - cpu_before) / CLOCKS_PER_SEC;
  EXPECT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_LT(cpu_seconds, 0.1) << "the wait loop busy-polled";
}

TEST(SpawnEngine, MalformedCommandThrows) {
  const std::vector<int> before = test::open_fds();
  EXPECT_THROW(run(Command{}), Error);
  Command bad_cwd{.argv = {"true"}};
  bad_cwd.cwd = std::string("/tmp\0x", 6);
  EXPECT_THROW(run(bad_cwd), Error);
  EXPECT_THROW(run(Command{.argv = {std::string("a\0b", 3)}}), Error);
  Command bad_env{.argv = {"true"}};
  bad_env.env = std::vector<std::string>{"NOEQUALS"};
  EXPECT_THROW(run(bad_env), Error);
  EXPECT_EQ(test::open_fds(), before);
}

TEST(SpawnEngine, AnotherWaiterReapingTheChildIsNotReportedAs125) {
  // A host thread that reaps any child (waitid(P_ALL)) takes the status
  // away whenever it gets there before run(). The thief tells the command to
  // exit and waits at once; it wins that race often, not always, so the
  // round repeats until it has won a few times (the control).
  int stolen_rounds = 0;
  for (int round = 0; round < 200 && stolen_rounds < 3; ++round) {
    int ready[2], go[2];
    ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
    ASSERT_EQ(::pipe2(go, O_CLOEXEC), 0);
    Command c = sh("echo up; read x; exit 9");
    c.stdout_mode = OutputMode::fd;
    c.stdout_fd = ready[1];
    c.stdin_mode = InputMode::fd;
    c.stdin_fd = go[0];
    pid_t stolen = 0;
    std::thread thief([&] {
      char b[3];
      (void)::read(ready[0], b, sizeof b);
      (void)::write(go[1], "\n", 1);
      siginfo_t info{};
      if (::waitid(P_ALL, 0, &info, WEXITED | __WALL) == 0) stolen = info.si_pid;
    });
    Result r = run(c);
    thief.join();
    for (int fd : {ready[0], ready[1], go[0], go[1]}) ::close(fd);
    EXPECT_NE(r.outcome.shell_exit_code(), 125) << r.outcome.describe();
    if (stolen == r.pid) {
      ++stolen_rounds;
      EXPECT_TRUE(r.outcome == Outcome::exited(9) || r.outcome == Outcome::status_lost())
          << r.outcome.describe();
    } else {
      EXPECT_EQ(r.outcome, Outcome::exited(9)) << r.outcome.describe();
    }
  }
  EXPECT_GT(stolen_rounds, 0) << "the control: the other waiter never reaped the command first";
}

TEST(SpawnEngine, TheCommandDiesWithItsCaller) {
  // The caller is a forked copy of this test that runs the engine; SIGKILL
  // to it must take the command along (PR_SET_PDEATHSIG), as nsenter's exec
  // in place would. (Under a sanitizer the forked copy would run the
  // engine inside a forked sanitizer runtime; the CLI's own test,
  // NsenterParity.SigkillToRunKillsTheCommand, covers it there.)
  if (test::under_sanitizer())
    GTEST_SKIP() << "fork of a sanitizer runtime; covered by the CLI test";
  int report[2];
  ASSERT_EQ(::pipe2(report, O_CLOEXEC), 0);
  pid_t caller = ::fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {
    Command c = sh("echo $$; exec sleep 1000");
    c.stdout_mode = OutputMode::fd;
    c.stdout_fd = report[1];
    run(c);
    ::_exit(0);
  }
  ::close(report[1]);
  char buf[32] = {};
  ssize_t n = ::read(report[0], buf, sizeof buf - 1);
  ::close(report[0]);
  ASSERT_GT(n, 0);
  pid_t command = std::atoi(buf);
  ASSERT_GT(command, 0);
  EXPECT_FALSE(test::process_gone(command)) << "the control: it runs while its caller lives";
  ::kill(caller, SIGKILL);
  int status = 0;
  ::waitpid(caller, &status, 0);
  EXPECT_TRUE(test::wait_until([&] { return test::process_gone(command); }, 5s))
      << "pid " << command << " outlived its SIGKILLed caller";
  if (!test::process_gone(command)) ::kill(command, SIGKILL);
}

// --- caller-owned stdio descriptors and the cancel descriptor ---

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return out;
  }
}

TEST(SpawnEngine, CallerOwnedStdioDescriptorsAreUsedAndLeftOpen) {
  int in[2], out[2], err[2];
  ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(err, O_CLOEXEC), 0);
  ASSERT_EQ(::write(in[1], "from-caller\n", 12), 12);
  ::close(in[1]);
  Command c = sh("cat; echo to-err >&2");
  c.stdin_mode = InputMode::fd;
  c.stdin_fd = in[0];
  c.stdout_mode = OutputMode::fd;
  c.stdout_fd = out[1];
  c.stderr_mode = OutputMode::fd;
  c.stderr_fd = err[1];
  Result r = run(c);
  EXPECT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(r.out.total_bytes, 0u) << "nothing is captured for an fd stream";
  // run() did not close the caller's descriptors: they are still open and
  // still the same pipes.
  for (int fd : {in[0], out[1], err[1]}) EXPECT_GE(::fcntl(fd, F_GETFD), 0) << fd;
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  EXPECT_EQ(read_all(out[0]), "from-caller\n");
  EXPECT_EQ(read_all(err[0]), "to-err\n");
  ::close(out[0]);
  ::close(err[0]);
}

TEST(SpawnEngine, CallerOwnedDescriptorsMayBeTheStandardOnes) {
  // stdout_fd = 2 and stderr_fd = 1: swapped, which needs copies above 2.
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  int saved1 = ::fcntl(1, F_DUPFD_CLOEXEC, 10);
  ASSERT_GE(saved1, 0);
  ASSERT_EQ(::dup2(out[1], 1), 1);
  Command c = sh("echo via-stderr >&2");
  c.stderr_mode = OutputMode::fd;
  c.stderr_fd = 1;
  c.stdout_mode = OutputMode::fd;
  c.stdout_fd = 2;
  Result r = run(c);
  ::dup2(saved1, 1);
  ::close(saved1);
  ::close(out[1]);
  EXPECT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(read_all(out[0]), "via-stderr\n");
  ::close(out[0]);
}

TEST(SpawnEngine, AClosedCallerDescriptorIsRejectedBeforeAnythingRuns) {
  const std::vector<int> before = test::open_fds();
  Command c{.argv = {"true"}};
  c.stdout_mode = OutputMode::fd;
  c.stdout_fd = 1000;  // not open
  EXPECT_THROW(run(c), Error);
  Command cancel{.argv = {"true"}};
  cancel.cancel_fd = 1001;
  EXPECT_THROW(run(cancel), Error);
  EXPECT_EQ(test::open_fds(), before);
}

TEST(SpawnEngine, CancelDescriptorKillsTheGroupAtOnce) {
  TempDir dir;
  std::string pidfile = dir / "grandchild.pid";
  int cancel[2], ready[2];
  ASSERT_EQ(::pipe2(cancel, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  // The command says on its stdout (a caller-owned pipe) when it and its
  // grandchild run; the test cancels then. TERM is ignored and the grace is
  // long: only an immediate SIGKILL ends it in time.
  Command c = sh("trap '' TERM; sleep 1000 & echo $! > " + pidfile + "; echo up; wait");
  c.stdout_mode = OutputMode::fd;
  c.stdout_fd = ready[1];
  c.cancel_fd = cancel[0];
  c.timeout = 600s;
  c.kill_grace = 120s;  // SIGKILL at once: waiting out the grace would fail the limit below
  std::chrono::steady_clock::time_point cancelled_at;
  std::thread canceller([&] {
    char b[3];
    (void)::read(ready[0], b, sizeof b);  // the command is up
    cancelled_at = std::chrono::steady_clock::now();
    (void)::write(cancel[1], "x", 1);
  });
  Result r = run(c);
  auto returned_at = std::chrono::steady_clock::now();
  canceller.join();
  EXPECT_EQ(r.outcome, Outcome::cancelled(SIGKILL)) << r.outcome.describe();
  EXPECT_EQ(r.outcome.shell_exit_code(), 137);
  EXPECT_NE(r.outcome.describe().find("cancelled"), std::string::npos) << r.outcome.describe();
  EXPECT_LT(returned_at - cancelled_at, test::scaled(5s));
  pid_t grandchild = 0;
  std::ifstream(pidfile) >> grandchild;
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(test::wait_until([&] { return test::process_gone(grandchild); }, 5s))
      << "the whole group is killed, not just the child";
  // run() never reads the cancel descriptor: it stays readable, and another
  // run given it starts nothing at all.
  Command again_cmd{.argv = {"sleep", "30"}};
  again_cmd.cancel_fd = cancel[0];
  Result again = run(again_cmd);
  EXPECT_EQ(again.outcome, Outcome::spawn_failed(Stage::prepare, ECANCELED))
      << again.outcome.describe();
  EXPECT_EQ(again.pid, -1) << "nothing may start once cancelled";
  EXPECT_EQ(again.outcome.shell_exit_code(), 125);
  for (int fd : {cancel[0], cancel[1], ready[0], ready[1]}) ::close(fd);
}

TEST(SpawnEngine, ClosingTheCancelPipeCancels) {
  int cancel[2];
  ASSERT_EQ(::pipe2(cancel, O_CLOEXEC), 0);
  Command c{.argv = {"sleep", "30"}};
  c.cancel_fd = cancel[0];
  // Closed before run(): the pipe is at EOF (POLLHUP), the same event as a
  // writer that closes it later, so nothing starts.
  ::close(cancel[1]);
  Result r = run(c);
  EXPECT_EQ(r.outcome, Outcome::spawn_failed(Stage::prepare, ECANCELED)) << r.outcome.describe();
  EXPECT_EQ(r.pid, -1);
  ::close(cancel[0]);
}

TEST(SpawnEngine, ACommandThatExitsIsNotReportedCancelled) {
  int cancel[2];
  ASSERT_EQ(::pipe2(cancel, O_CLOEXEC), 0);
  Command c = sh("exit 3");
  c.cancel_fd = cancel[0];
  Result r = run(c);
  EXPECT_EQ(r.outcome, Outcome::exited(3)) << r.outcome.describe();
  ::close(cancel[0]);
  ::close(cancel[1]);
}

}  // namespace
}  // namespace netns::spawn
