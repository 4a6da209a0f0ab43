// The spawn engine with real namespaces: the child is in the given network
// namespace and in the caller's mount namespace, its mounts are visible to
// the caller, many threads spawn at once, and no spawn path leaks a
// descriptor, success or failure.
#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "netns/fd.hpp"
#include "netns/test/support.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/spawn/spawn.hpp"
#include "netns_exec/spawn_testing.hpp"

namespace netns::spawn {
namespace {

using namespace std::chrono_literals;
using test::NetnsChild;
using test::TempDir;

std::string ns_link(const std::string& path) {
  char buf[256];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::string net_link_of(const NetnsChild& ns) {
  return "net:[" + std::to_string(ns.ns_id().ino) + "]";
}

Command in_ns(int fd, std::vector<std::string> argv) {
  Command c;
  c.argv = std::move(argv);
  c.netns_fd = fd;
  c.timeout = 20s;
  return c;
}

TEST(SpawnNetns, ChildIsInTheGivenNetnsAndTheCallersMountNamespace) {
  NETNS_REQUIRE_ROOT();
  NetnsChild ns;
  UniqueFd fd = open_fd(ns.ns_path(), O_RDONLY);
  Result r = run(in_ns(fd.get(), {"readlink", "/proc/self/ns/net", "/proc/self/ns/mnt"}));
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe() << r.err.data;
  std::istringstream lines(r.out.data);
  std::string net, mnt;
  std::getline(lines, net);
  std::getline(lines, mnt);
  EXPECT_EQ(net, net_link_of(ns));
  EXPECT_NE(net, ns_link("/proc/self/ns/net"));
  EXPECT_EQ(mnt, ns_link("/proc/self/ns/mnt"));
  // And every other namespace is the caller's too.
  for (const char* type : {"uts", "ipc", "pid", "user", "cgroup"}) {
    Result o = run(in_ns(fd.get(), {"readlink", std::string("/proc/self/ns/") + type}));
    EXPECT_EQ(o.out.data, ns_link(std::string("/proc/self/ns/") + type) + "\n") << type;
  }
  // The caller's own thread is untouched.
  EXPECT_EQ(current_netns_id(), test::ns_id_of_path("/proc/self/ns/net"));
}

TEST(SpawnNetns, TheNamespaceHasOnlyItsOwnInterfaces) {
  NETNS_REQUIRE_ROOT();
  NetnsChild ns;
  UniqueFd fd = open_fd(ns.ns_path(), O_RDONLY);
  Result r = run(in_ns(fd.get(), {"ip", "-o", "link", "show"}));
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe() << r.err.data;
  EXPECT_NE(r.out.data.find(": lo:"), std::string::npos) << r.out.data;
  size_t count = 0;
  for (char c : r.out.data) count += c == '\n';
  EXPECT_EQ(count, 1u) << r.out.data;
}

TEST(SpawnNetns, AMountMadeByTheChildIsVisibleToTheCaller) {
  NETNS_REQUIRE_ROOT();
  NetnsChild ns;
  TempDir dir;
  std::string point = dir / "mnt";
  ASSERT_EQ(::mkdir(point.c_str(), 0755), 0);
  UniqueFd fd = open_fd(ns.ns_path(), O_RDONLY);
  Result r =
      run(in_ns(fd.get(), {"mount", "-t", "tmpfs", "-o", "size=1m", "netns-spawn-test", point}));
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe() << r.err.data;
  struct statfs fs {};
  ASSERT_EQ(::statfs(point.c_str(), &fs), 0);
  bool visible = fs.f_type == 0x01021994;  // TMPFS_MAGIC
  // Unmount before asserting, from the caller's side.
  Result u = run(Command{.argv = {"umount", point}});
  EXPECT_TRUE(visible) << "the child's tmpfs is not visible in the caller's mount namespace";
  EXPECT_TRUE(u.outcome.success()) << u.err.data;
}

TEST(SpawnNetns, TimeoutInsideTheNamespaceKillsTheWholeGroup) {
  NETNS_REQUIRE_ROOT();
  NetnsChild ns;
  TempDir dir;
  UniqueFd fd = open_fd(ns.ns_path(), O_RDONLY);
  std::string pidfile = dir / "pid";
  Command c = in_ns(fd.get(), {"/bin/sh", "-c", "sleep 1000 & echo $! > " + pidfile + "; wait"});
  c.timeout = 300ms;
  Result r = run(c);
  EXPECT_EQ(r.outcome.shell_exit_code(), 124) << r.outcome.describe();
  pid_t grandchild = 0;
  std::ifstream(pidfile) >> grandchild;
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(test::wait_until([&] { return test::process_gone(grandchild); }, 5s));
}

TEST(SpawnNetns, EightThreadsSpawnAtOnce) {
  NETNS_REQUIRE_ROOT();
  NetnsChild a;
  NetnsChild b;
  UniqueFd fa = open_fd(a.ns_path(), O_RDONLY);
  UniqueFd fb = open_fd(b.ns_path(), O_RDONLY);
  const std::string want_a = net_link_of(a) + "\n";
  const std::string want_b = net_link_of(b) + "\n";
  const std::string want_own = ns_link("/proc/self/ns/net") + "\n";
  std::atomic<int> failures{0};
  std::atomic<int> runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        int which = (t + i) % 3;
        int fd = which == 0 ? fa.get() : which == 1 ? fb.get() : -1;
        const std::string& want = which == 0 ? want_a : which == 1 ? want_b : want_own;
        Command c = in_ns(fd, {"readlink", "/proc/self/ns/net"});
        c.stdin_data = "thread " + std::to_string(t);
        Result r = run(c);
        ++runs;
        if (!r.outcome.success() || r.out.data != want) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(runs.load(), 200);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(current_netns_id(), test::ns_id_of_path("/proc/self/ns/net"));
}

// Every spawn path, success and failure, leaves the caller's descriptor
// table as it found it, and the child sees only 0, 1 and 2.
TEST(SpawnNetns, NoSpawnPathLeaksADescriptor) {
  NETNS_REQUIRE_ROOT();
  NetnsChild ns;
  UniqueFd fd = open_fd(ns.ns_path(), O_RDONLY);
  TempDir dir;
  std::string not_exec = dir / "not-exec";
  std::ofstream(not_exec) << "#!/bin/sh\n";
  ::chmod(not_exec.c_str(), 0644);
  UniqueFd not_ns = open_fd("/dev/null", O_RDONLY);
  // A descriptor the caller forgot to make close-on-exec: the child must
  // not inherit it.
  int leaky = ::fcntl(not_ns.get(), F_DUPFD, 3);
  ASSERT_GE(leaky, 0);

  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &usr2, &old);
  UniqueFd sfd = make_signalfd(usr2);

  std::vector<std::pair<std::string, Command>> paths;
  auto add = [&](std::string name, Command c) {
    paths.emplace_back(std::move(name), std::move(c));
  };
  add("netns success", in_ns(fd.get(), {"true"}));
  add("own netns", in_ns(-1, {"true"}));
  add("stdin data", [&] {
    Command c = in_ns(fd.get(), {"cat"});
    c.stdin_data = "x";
    return c;
  }());
  add("stdin early close", [&] {
    Command c = in_ns(fd.get(), {"/bin/sh", "-c", "exec 0<&-"});
    c.stdin_data = std::string(1 << 20, 'x');
    return c;
  }());
  add("discard", [&] {
    Command c = in_ns(fd.get(), {"echo", "x"});
    c.stdout_mode = OutputMode::discard;
    c.stderr_mode = OutputMode::discard;
    return c;
  }());
  add("flood", in_ns(fd.get(), {"/bin/sh", "-c", "head -c 3000000 /dev/zero"}));
  add("exit code", in_ns(fd.get(), {"/bin/sh", "-c", "exit 3"}));
  add("signalled", in_ns(fd.get(), {"/bin/sh", "-c", "kill -KILL $$"}));
  add("timeout", [&] {
    Command c = in_ns(fd.get(), {"sleep", "100"});
    c.timeout = 100ms;
    return c;
  }());
  add("timeout sigkill", [&] {
    Command c = in_ns(fd.get(), {"/bin/sh", "-c", "trap '' TERM; sleep 100 & wait; wait"});
    c.timeout = 100ms;
    c.kill_grace = 100ms;
    return c;
  }());
  add("not found", in_ns(fd.get(), {"netns-spawn-no-such-command"}));
  add("not executable", in_ns(fd.get(), {not_exec}));
  add("setns failure", in_ns(not_ns.get(), {"true"}));
  add("chdir failure", [&] {
    Command c = in_ns(fd.get(), {"true"});
    c.cwd = "/nonexistent-netns-spawn";
    return c;
  }());
  add("forwarded signal fd", [&] {
    Command c = in_ns(fd.get(), {"true"});
    c.forward_signal_fd = sfd.get();
    return c;
  }());

  // Warm-up: the first spawn may allocate process-wide state (none is
  // expected to be a descriptor, but measure after it anyway).
  (void)run(in_ns(fd.get(), {"true"}));
  const std::vector<int> before = test::open_fds();
  for (CloneMethod method : {CloneMethod::automatic, CloneMethod::clone, CloneMethod::fork}) {
    for (const auto& [name, command] : paths) {
      Result r = run(command, method);
      EXPECT_EQ(test::open_fds(), before) << name << " (method " << static_cast<int>(method) << ")";
    }
  }
  // What the child itself sees.
  Result seen = run(in_ns(fd.get(), {"ls", "/proc/self/fd"}));
  ::close(leaky);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(seen.outcome.success()) << seen.err.data;
  // 0, 1, 2 and the directory ls itself has open.
  EXPECT_EQ(seen.out.data, "0\n1\n2\n3\n");
}

TEST(SpawnNetns, PassThroughUsesTheCallersDescriptors) {
  NETNS_REQUIRE_ROOT();
  NetnsChild ns;
  UniqueFd fd = open_fd(ns.ns_path(), O_RDONLY);
  TempDir dir;
  std::string out_path = dir / "out";
  // Run a helper that redirects its own stdout to a file and then uses the
  // engine in inherit mode: what the command writes lands in the file.
  UniqueFd file = open_fd(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int saved = ::dup(1);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(file.get(), 1), 1);
  Command c = in_ns(fd.get(), {"readlink", "/proc/self/ns/net"});
  c.stdout_mode = OutputMode::inherit;
  c.stdin_mode = InputMode::inherit;
  Result r = run(c);
  ::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  ASSERT_TRUE(r.outcome.success()) << r.outcome.describe();
  EXPECT_EQ(r.out.data, "");
  std::ifstream in(out_path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, net_link_of(ns));
}

}  // namespace
}  // namespace netns::spawn
