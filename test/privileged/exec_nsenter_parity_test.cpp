// netns-exec where it stands in for util-linux nsenter, side by side with
// the real one: the nsenter form execs in place (pid,
// descriptors, ignored signals, fatal signal are the command's), and `run`,
// which stays the parent, loses nothing a caller relies on: SIGKILL takes
// the command along, an ignored SIGCHLD does not turn into 125, a terminal
// works, piped stdin reaches the command with --json, a descendant that
// left the group dies at the timeout, a lost JSON result fails the run.
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exec_fixture.hpp"
#include "netns/error.hpp"

namespace netns::test::exec {
namespace {

const char* const kNsenter = "/usr/bin/nsenter";

struct NsenterParity : HeldExecFixture {
  void SetUp() override {
    HeldExecFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(::access(kNsenter, X_OK), 0) << "util-linux nsenter is needed for the comparison";
  }

  // The same command through netns-exec's nsenter form and through nsenter.
  [[nodiscard]] std::vector<std::string> ours(const std::vector<std::string>& cmd) const {
    std::vector<std::string> a{NETNS_EXEC_BIN, "--net=" + link, "--"};
    a.insert(a.end(), cmd.begin(), cmd.end());
    return a;
  }
  [[nodiscard]] std::vector<std::string> theirs(const std::vector<std::string>& cmd) const {
    std::vector<std::string> a{kNsenter, "--net=" + link, "--"};
    a.insert(a.end(), cmd.begin(), cmd.end());
    return a;
  }
  [[nodiscard]] std::vector<std::string> run_form(const std::vector<std::string>& opts,
                                                  const std::vector<std::string>& cmd) const {
    std::vector<std::string> a{NETNS_EXEC_BIN, "run", "--netns", link};
    a.insert(a.end(), opts.begin(), opts.end());
    a.emplace_back("--");
    a.insert(a.end(), cmd.begin(), cmd.end());
    return a;
  }
};

bool file_has_content(const std::string& path) { return !read_text(path).empty(); }

pid_t read_pid(const std::string& path) {
  pid_t pid = 0;
  std::ifstream(path) >> pid;
  return pid;
}

// Item 6: what the command inherits — descriptors 3 and up, ignored signals
// — is exactly what nsenter's command inherits; a namespace descriptor is
// never among them.
TEST_F(NsenterParity, DescriptorsAndIgnoredSignalsPassThroughLikeNsenter) {
  RunOptions options;
  options.child_setup = [] {
    int fd = ::open("/dev/null", O_RDONLY);  // inherited, not close-on-exec
    ::dup2(fd, 7);
    ::signal(SIGHUP, SIG_IGN);  // nohup
    ::signal(SIGPIPE, SIG_IGN);
    ::signal(SIGRTMIN + 1, SIG_IGN);  // a real-time one too (glibc's SIGRTMIN is 34)
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR2);
    ::sigprocmask(SIG_BLOCK, &block, nullptr);
  };
  // The command's own descriptors (ls lists its own: fd 3 is the directory
  // it reads) and its own dispositions and mask. No shell in between: a
  // shell opens and closes descriptors and blocks signals around its forks.
  const std::vector<std::string> list{"ls", "/proc/self/fd"};
  const std::vector<std::string> links{"ls", "-l", "/proc/self/fd"};
  const std::vector<std::string> status{"grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"};
  for (const auto& cmd : {list, status}) {
    auto mine = run_command(ours(cmd), options);
    auto real = run_command(theirs(cmd), options);
    ASSERT_TRUE(mine.ok()) << mine.describe();
    ASSERT_TRUE(real.ok()) << real.describe();
    EXPECT_EQ(mine.out, real.out) << cmd[0];
  }
  auto mine_list = run_command(ours(list), options);
  EXPECT_NE(mine_list.out.find("\n7\n"), std::string::npos) << mine_list.out;
  auto mine_status = run_command(ours(status), options);
  // Exec in place, as nsenter: the ignored dispositions and the mask pass.
  EXPECT_NE(mine_status.out.find("SigIgn:\t0000000400001001"), std::string::npos)
      << mine_status.out;
  EXPECT_NE(mine_status.out.find("SigBlk:\t0000000000000800"), std::string::npos)
      << mine_status.out;
  auto mine_links = run_command(ours(links), options);
  EXPECT_EQ(mine_links.out.find("net:["), std::string::npos)
      << "a namespace fd leaked: " << mine_links.out;

  // `run` stays the parent: the command gets exactly 0, 1, 2, default
  // dispositions (the real-time ones too) and an empty mask, never one of
  // our descriptors.
  auto run_list = run_command(run_form({}, list), options);
  ASSERT_TRUE(run_list.ok()) << run_list.describe();
  EXPECT_EQ(run_list.out, "0\n1\n2\n3\n") << "3 is ls's own directory";
  auto run_status = run_command(run_form({}, status), options);
  EXPECT_NE(run_status.out.find("SigIgn:\t0000000000000000"), std::string::npos) << run_status.out;
  EXPECT_NE(run_status.out.find("SigBlk:\t0000000000000000"), std::string::npos) << run_status.out;
}

// A Rook-era holder publishes a link and no record. The nsenter form has no
// options of its own (ceph-csi's call line is fixed), so by default it
// refuses such a link, and NETNS_EXEC_IDENTITY=if-present in the plugin's
// environment is the migration's opt-in; a bad value is refused naming it.
TEST_F(NsenterParity, ARecordLessLinkNeedsTheEnvironmentsOptIn) {
  UniqueFd d = open_fd(holder_dir, O_RDONLY | O_DIRECTORY);
  symlink_atomic(d.get(), "rook.net.ns", ns->ns_path(), holder_dir);
  const std::string rook = holder_dir + "/rook.net.ns";
  const std::vector<std::string> cmd{NETNS_EXEC_BIN, "--net=" + rook, "--", "readlink",
                                     "/proc/self/ns/net"};

  auto refused = run_command(cmd);
  EXPECT_EQ(refused.exit_code, 125) << refused.describe();
  EXPECT_NE(refused.err.find("rook.holder.json"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out, "") << "nothing may run";

  RunOptions opt_in;
  opt_in.env = std::map<std::string, std::string>{{"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"},
                                                  {"NETNS_EXEC_IDENTITY", "if-present"}};
  auto ran = run_command(cmd, opt_in);
  ASSERT_TRUE(ran.ok()) << ran.describe();
  EXPECT_EQ(ran.out, "net:[" + std::to_string(ns->ns_id().ino) + "]\n");

  RunOptions bad = opt_in;
  (*bad.env)["NETNS_EXEC_IDENTITY"] = "sometimes";
  auto wrong = run_command(cmd, bad);
  EXPECT_EQ(wrong.exit_code, 125) << wrong.describe();
  EXPECT_NE(wrong.err.find("NETNS_EXEC_IDENTITY"), std::string::npos) << wrong.err;
  EXPECT_EQ(wrong.out, "");
}

// Item 6: a command killed by a signal comes back as that signal, as with
// nsenter (Go: "signal: killed"), not as exit code 137.
TEST_F(NsenterParity, AFatalSignalReachesTheCallerAsASignal) {
  const std::vector<std::string> cmd{"sh", "-c", "kill -KILL $$"};
  auto real = run_command(theirs(cmd));
  auto mine = run_command(ours(cmd));
  EXPECT_TRUE(real.signaled && real.signal == SIGKILL) << real.describe();
  EXPECT_TRUE(mine.signaled && mine.signal == SIGKILL) << mine.describe();
  // `run` reports it per SPEC as 128+N.
  auto run = run_command(run_form({}, cmd));
  EXPECT_EQ(run.exit_code, 128 + SIGKILL) << run.describe();
}

// Item 1: SIGKILL to netns-exec --net= is SIGKILL to the command: it is the
// same process, as with nsenter.
TEST_F(NsenterParity, SigkillToTheNsenterFormKillsTheCommand) {
  for (bool real : {true, false}) {
    std::string pidfile = tmp / (real ? "real.pid" : "ours.pid");
    const std::vector<std::string> cmd{"sh", "-c", "echo $$ > " + pidfile + "; exec sleep 1000"};
    Process p(real ? theirs(cmd) : ours(cmd));
    ASSERT_TRUE(wait_until([&] { return file_has_content(pidfile); }, 10s)) << p.err();
    EXPECT_EQ(read_pid(pidfile), p.pid())
        << (real ? "nsenter" : "netns-exec") << " did not exec in place";
    p.kill(SIGKILL);
    EXPECT_TRUE(p.wait(5s));
    EXPECT_TRUE(process_gone(read_pid(pidfile)));
  }
}

// Item 1: `run` is the command's parent; SIGKILL to it takes the command
// along (PR_SET_PDEATHSIG) instead of leaving it to init.
TEST_F(NsenterParity, SigkillToRunKillsTheCommand) {
  std::string pidfile = tmp / "cmd.pid";
  Process p(
      run_form({"--timeout", "60s"}, {"sh", "-c", "echo $$ > " + pidfile + "; exec sleep 1000"}));
  ASSERT_TRUE(wait_until([&] { return file_has_content(pidfile); }, 10s)) << p.err();
  pid_t command = read_pid(pidfile);
  ASSERT_NE(command, p.pid());
  EXPECT_FALSE(process_gone(command)) << "the control: it runs while netns-exec does";
  p.kill(SIGKILL);
  EXPECT_TRUE(p.wait(5s));
  EXPECT_TRUE(wait_until([&] { return process_gone(command); }, 5s))
      << "pid " << command << " outlived netns-exec";
  if (!process_gone(command)) ::kill(command, SIGKILL);
}

// Item 2: a caller that ignores SIGCHLD gets the command's exit code, never
// 125 after the command ran. The nsenter form passes the disposition on to
// the command, as nsenter does.
TEST_F(NsenterParity, ACallerIgnoringSigchldGetsTheExitCodeNot125) {
  RunOptions options;
  options.child_setup = [] { ::signal(SIGCHLD, SIG_IGN); };
  auto run = exec_touch({"run", "--netns", link}, options);
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_TRUE(marker_exists());
  auto seven = run_command(run_form({"--json"}, {"sh", "-c", "exit 7"}), options);
  EXPECT_EQ(seven.exit_code, 7) << seven.describe();
  const std::vector<std::string> cmd{"sh", "-c", "grep SigIgn /proc/$$/status"};
  auto mine = run_command(ours(cmd), options);
  auto real = run_command(theirs(cmd), options);
  EXPECT_EQ(mine.out, real.out);
}

// Item 4: --json captures the output; stdin is still the caller's.
TEST_F(NsenterParity, JsonPassesPipedStdinThrough) {
  RunOptions options;
  options.stdin_data = "piped line\n";
  auto r = run_command(run_form({"--json"}, {"cat"}), options);
  ASSERT_TRUE(r.ok()) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["stdout"]["data"], "piped line\n");
}

// A pseudo-terminal the child process makes its controlling terminal, with
// its own group in the foreground, as an interactive shell would.
struct Pty {
  Pty() {
    master = open_fd("/dev/ptmx", O_RDWR | O_NOCTTY);
    if (::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0)
      throw Error::sys("grantpt", "/dev/ptmx", errno);
    slave = ::ptsname(master.get());
  }
  // For the child, after fork: a new session with the terminal on 0, 1, 2.
  [[nodiscard]] std::function<void()> attach() const {
    std::string path = slave;
    return [path] {
      ::setsid();
      int fd = ::open(path.c_str(), O_RDWR);
      ::ioctl(fd, TIOCSCTTY, 0);
      ::dup2(fd, 0);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    };
  }
  void type(const std::string& text) const {
    ASSERT_EQ(::write(master.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  UniqueFd master;
  std::string slave;
};

// Items 3 and 5: on a terminal the command reads it (no SIGTTIN stop) and
// Ctrl-C arrives exactly once — in `run` and in the nsenter form, the same
// as with nsenter.
TEST_F(NsenterParity, OnATerminalTheCommandReadsItAndCtrlCArrivesOnce) {
  int n = 0;
  for (bool use_run : {false, true}) {
    for (bool real : {false, true}) {
      if (use_run && real) continue;
      std::string log = tmp / ("log" + std::to_string(n));
      std::string ready = tmp / ("ready" + std::to_string(n));
      ++n;
      const std::vector<std::string> cmd{"sh", "-c",
                                         "trap 'echo INT >> " + log + "' INT; echo up > " + ready +
                                             "; while :; do if read line; then echo got:$line >> " +
                                             log + "; exit 0; fi; done"};
      const char* name = use_run ? "run" : real ? "nsenter" : "netns-exec --net=";
      Pty pty;
      Process p(use_run ? run_form({"--timeout", "60s"}, cmd)
                : real  ? theirs(cmd)
                        : ours(cmd),
                pty.attach());
      ASSERT_TRUE(wait_until([&] { return file_has_content(ready); }, 10s)) << name;
      pty.type("\x03");
      ASSERT_TRUE(wait_until([&] { return file_has_content(log); }, 10s)) << name;
      pty.type("hello\n");
      auto status = p.wait(10s);
      ASSERT_TRUE(status) << name << ": hangs (stopped by SIGTTIN?)";
      EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << name << ": " << *status;
      EXPECT_EQ(read_text(log), "INT\ngot:hello\n") << name;
    }
  }
}

// Item 7: at the timeout, a descendant that left the process group (setsid)
// is found and killed too, and the log says so.
TEST_F(NsenterParity, TimeoutKillsADescendantThatLeftTheGroup) {
  std::string info = tmp / "escaped";
  auto r = run_command(run_form({"--timeout", "1s", "--kill-grace", "200ms"},
                                {"sh", "-c",
                                 "setsid sh -c 'echo $$ $(cut -d\" \" -f6 /proc/$$/stat) > " +
                                     info + "; exec sleep 1000' & wait"}));
  EXPECT_EQ(r.exit_code, 124) << r.describe();
  std::istringstream in(read_text(info));
  pid_t pid = 0, sid = 0;
  in >> pid >> sid;
  ASSERT_GT(pid, 0) << "the descendant did not start: " << r.describe();
  EXPECT_EQ(pid, sid) << "the control: it is a session leader, out of the command's group";
  EXPECT_TRUE(process_gone(pid)) << "pid " << pid << " survived the timeout";
  EXPECT_NE(r.err.find("had left the command's process group"), std::string::npos) << r.err;
  if (!process_gone(pid)) ::kill(pid, SIGKILL);
}

// A child netns-exec inherited (its caller forked it, then exec'ed
// netns-exec) is not the command's descendant: the timeout leaves it alone.
TEST_F(NsenterParity, TimeoutSparesAChildNetnsExecInherited) {
  std::string pidfile = tmp / "inherited";
  std::string script = "sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > " + pidfile + "; exec";
  for (const std::string& a :
       run_form({"--timeout", "1s", "--kill-grace", "200ms"}, {"sleep", "30"}))
    script += " '" + a + "'";
  auto r = run_command({"sh", "-c", script});
  EXPECT_EQ(r.exit_code, 124) << r.describe();
  pid_t pid = read_pid(pidfile);
  ASSERT_GT(pid, 0) << r.describe();
  EXPECT_FALSE(process_gone(pid)) << "the inherited child was killed: " << r.err;
  EXPECT_EQ(r.err.find("had left the command's process group"), std::string::npos) << r.err;
  ::kill(pid, SIGKILL);
}

// Item 8: the JSON result that cannot be written fails the run, clearly,
// and not with 125 (the command ran).
TEST_F(NsenterParity, AJsonResultThatCannotBeWrittenFailsTheRun) {
  RunOptions full;
  full.child_setup = [] {
    int fd = ::open("/dev/full", O_WRONLY);
    ::dup2(fd, 1);
  };
  auto r = exec_touch({"run", "--json", "--netns", link}, full);
  EXPECT_EQ(r.exit_code, 74) << r.describe();
  EXPECT_TRUE(marker_exists());
  EXPECT_NE(r.err.find("could not be written"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ENOSPC"), std::string::npos) << r.err;

  RunOptions closed;
  closed.child_setup = [] { ::close(1); };
  auto c = run_command(run_form({"--json"}, {"true"}), closed);
  EXPECT_EQ(c.exit_code, 74) << c.describe();
  EXPECT_NE(c.err.find("could not be written"), std::string::npos) << c.err;

  // The control: a writable stdout gives the command's own code.
  auto ok = run_command(run_form({"--json"}, {"true"}));
  EXPECT_EQ(ok.exit_code, 0) << ok.describe();
}

}  // namespace
}  // namespace netns::test::exec
