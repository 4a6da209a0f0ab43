// The holder DaemonSet's security context is not a guess: the holder image's
// tree (manifests/images/rootfs.sh) runs here the way a container runtime
// would run it for that DaemonSet: joined to a "pod sandbox" with its own
// network and mount namespaces, a read-only root with the kubelet plugin
// directory bind-mounted writable, uid 0 with every capability dropped and
// no_new_privs. The holder must publish, and `netns-holder check` (the probes)
// must pass, and the preStop guard must reach the holder's log and honour an
// announced replacement, with nothing added back. The commands are the ones the chart
// renders into the DaemonSet (the real helm, through chart_facts), so a flag
// the binaries stop accepting fails here.
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <string>

#include "chart_facts.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"

namespace {

using namespace netns::test;

constexpr const char* kPodDir = "/var/lib/kubelet/plugins/rbd.csi.ceph.com";

// The holder image takes the static holder (rootfs.sh refuses a dynamic one);
// sanitizer builds link it dynamically (sanitizer runtimes cannot be static).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NETNS_REQUIRE_STATIC_HOLDER() \
  GTEST_SKIP() << "sanitizer builds link the holder dynamically; its image needs the static build"
#else
#define NETNS_REQUIRE_STATIC_HOLDER() (void)0
#endif

// Leaves the forked child with a message and no allocation.
[[noreturn]] void child_fail(const char* what) {
  (void)!::write(2, what, std::char_traits<char>::length(what));
  (void)!::write(2, "\n", 1);
  ::_exit(120);
}

// The holder image's files plus a writable "hostPath" directory, and a pod
// sandbox process that owns a network and a mount namespace in which the
// image's root is read-only and the directory is mounted at kPodDir.
class Pod {
 public:
  Pod() {
    root_ = tmp_ / "rootfs";
    host_dir_ = tmp_ / "host-plugin-dir";
    auto made = run_command({std::string(NETNS_SOURCE_DIR) + "/manifests/images/rootfs.sh",
                             "holder", root_, NETNS_HOLDER_BIN, NETNS_EXEC_BIN});
    if (!made.ok()) throw std::runtime_error("rootfs.sh: " + made.describe());
    run_command({"mkdir", "-p", root_ + kPodDir, host_dir_});
    ::chmod(host_dir_.c_str(), 0755);
    const std::string ready = tmp_ / "ready";
    const std::string script =
        "set -e\n"
        "mount --bind \"$1\" \"$1\"\n"
        "mount -o remount,bind,ro \"$1\"\n"
        "mount --bind \"$2\" \"$1" +
        std::string(kPodDir) +
        "\"\n"
        "mount -t proc proc \"$1/proc\"\n"
        "ip link set lo up\n"
        "touch \"$3\"\n"
        "exec sleep 600\n";
    sandbox_ = std::make_unique<Process>(
        std::vector<std::string>{"unshare", "--net", "--mount", "--propagation", "private", "--",
                                 "sh", "-c", script, "sandbox", root_, host_dir_, ready});
    if (!wait_until([&] { return ::access(ready.c_str(), F_OK) == 0; }, 10s)) {
      throw std::runtime_error("pod sandbox did not start: " + sandbox_->err());
    }
    const std::string proc = "/proc/" + std::to_string(sandbox_->pid()) + "/ns/";
    net_ = netns::open_fd(proc + "net", O_RDONLY);
    mnt_ = netns::open_fd(proc + "mnt", O_RDONLY);
  }

  // What a container runtime does for a container of this pod: join the
  // sandbox's namespaces, enter the image's root, drop every capability.
  std::function<void()> container(bool drop_caps = true) const {
    const int net = net_.get(), mnt = mnt_.get();
    const char* root = root_.c_str();
    return [net, mnt, root, drop_caps] {
      if (::setns(net, CLONE_NEWNET) != 0) child_fail("setns net");
      if (::setns(mnt, CLONE_NEWNS) != 0) child_fail("setns mnt");
      if (::chroot(root) != 0 || ::chdir("/") != 0) child_fail("chroot");
      if (!drop_caps) return;
      if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail("no_new_privs");
      for (unsigned long cap = 0; cap <= 63; ++cap) ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
      ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
      __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
      __user_cap_data_struct data[2] = {};
      if (::syscall(SYS_capset, &header, data) != 0) child_fail("capset");
    };
  }

  // Only the sandbox's network namespace, with the host's files (for test
  // peers that are not part of the image).
  std::function<void()> network_only() const {
    const int net = net_.get();
    return [net] {
      if (::setns(net, CLONE_NEWNET) != 0) child_fail("setns net");
    };
  }

  // How the tests run a command in a container of this pod.
  [[nodiscard]] RunOptions in_container() const {
    RunOptions options;
    options.child_setup = container();
    return options;
  }

  [[nodiscard]] const std::string& host_dir() const { return host_dir_; }

 private:
  TempDir tmp_;
  std::string root_, host_dir_;
  std::unique_ptr<Process> sandbox_;
  netns::UniqueFd net_, mnt_;
};

std::string status_field(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::string value = line.substr(field.size() + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return "";
}

// The chart's RBD holder for this cluster ID (guard wait 5 s); its directory is kPodDir.
ChartHolder manifest(const std::string& id, bool socket) {
  ChartHolder h = chart_facts(id, socket, "/var/lib/kubelet", std::chrono::seconds{5})
                      .holder("rbd.csi.ceph.com");
  if (h.dir != kPodDir) throw std::runtime_error("the chart's holder directory is " + h.dir);
  return h;
}

// The readiness/liveness probe as the kubelet execs it in the container,
// retried (as the kubelet does) for up to 10 s until it passes: the record is
// published before the link and the socket. Returns the last run.
RunResult probe_until_ready(const ChartHolder& holder, const RunOptions& in_container) {
  RunResult check;
  wait_until(
      [&] {
        check = run_command(holder.check, in_container);
        return check.ok();
      },
      10s, 50ms);
  return check;
}

// A Ceph-like session in the pod's network namespace, up when this returns:
// a loopback TCP connection to port 6789 (the monitor port) that lasts a
// minute unless killed.
std::unique_ptr<Process> ceph_like_session(const Pod& pod) {
  auto session = std::make_unique<Process>(
      std::vector<std::string>{
          "perl", "-MIO::Socket::INET", "-e",
          "$|=1; my $l = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 6789,"
          " Listen => 1, ReuseAddr => 1) or die $!;"
          " my $c = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => 6789) or die $!;"
          " my $s = $l->accept or die $!; print \"up\\n\"; sleep 60;"},
      pod.network_only());
  if (!wait_until([&] { return session->out().find("up") != std::string::npos; }, 10s))
    throw std::runtime_error("the Ceph-like session did not come up: " + session->err());
  return session;
}

std::vector<std::string> holder_argv(const std::string& id, bool socket) {
  return manifest(id, socket).command;
}

void expect_holds_without_capabilities(bool socket) {
  Pod pod;
  const std::string id = unique_name("caps");
  const ChartHolder facts = manifest(id, socket);
  Process holder(facts.command, pod.container());
  const std::string record = pod.host_dir() + "/" + id + ".holder.json";
  ASSERT_TRUE(wait_until([&] { return ::access(record.c_str(), F_OK) == 0; }, 10s))
      << "holder did not publish with every capability dropped: " << holder.err();
  EXPECT_EQ(status_field(holder.pid(), "CapEff"), "0000000000000000");
  EXPECT_EQ(status_field(holder.pid(), "CapPrm"), "0000000000000000");
  EXPECT_EQ(status_field(holder.pid(), "CapBnd"), "0000000000000000");
  EXPECT_EQ(status_field(holder.pid(), "NoNewPrivs"), "1");
  if (socket) {
    struct stat st {};
    EXPECT_EQ(::lstat((pod.host_dir() + "/" + id + ".net.sock").c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
  }

  // The readiness/liveness probe, retried until the holder has finished.
  const RunOptions in_container = pod.in_container();
  const RunResult check = probe_until_ready(facts, in_container);
  EXPECT_TRUE(check.ok()) << check.describe();

  // The preStop hook, exactly as the DaemonSet renders it (with a 5 s
  // wait): no Ceph session in a fresh namespace, so it returns at once.
  auto count = run_command({"/usr/bin/netns-exec", "guard", "--count", "--netns",
                            "/proc/self/ns/net", "--allow-own-netns"},
                           in_container);
  EXPECT_TRUE(count.ok()) << count.describe();
  EXPECT_EQ(count.out, "0\n");
  auto guard = run_command(facts.guard, in_container);
  EXPECT_TRUE(guard.ok()) << guard.describe();
  // --holder-record: its lines are in the holder's stderr, the container's
  // log (kubectl logs), written with every capability dropped.
  const std::string logged = holder.err();
  EXPECT_NE(
      logged.find("netns-exec guard: preStop: checking for storage sessions in /proc/self/ns/net "
                  "before holder pid " +
                  std::to_string(holder.pid())),
      std::string::npos)
      << logged;
  EXPECT_NE(logged.find("netns-exec guard: no established storage session"), std::string::npos)
      << logged;

  holder.kill(SIGTERM);
  auto status = holder.wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << holder.err();
  EXPECT_NE(::access(record.c_str(), F_OK), 0) << "the holder left its record behind";
}

}  // namespace

TEST(HolderSecurityContext, SymlinkModeNeedsNoCapability) {
  NETNS_REQUIRE_ROOT();
  NETNS_REQUIRE_STATIC_HOLDER();
  expect_holds_without_capabilities(false);
}

TEST(HolderSecurityContext, SocketModeNeedsNoCapability) {
  NETNS_REQUIRE_ROOT();
  NETNS_REQUIRE_STATIC_HOLDER();
  expect_holds_without_capabilities(true);
}

// The control that shows the capabilities really are gone: a directory that
// uid 0 may only write with CAP_DAC_OVERRIDE (root's own, mode 0555, which the
// holder's provenance check accepts) is writable for the holder with its
// capabilities, and refused without them.
TEST(HolderSecurityContext, DroppedCapabilitiesAreReallyDropped) {
  NETNS_REQUIRE_ROOT();
  NETNS_REQUIRE_STATIC_HOLDER();
  Pod pod;
  ASSERT_EQ(::chmod(pod.host_dir().c_str(), 0555), 0);

  const std::string with_caps = unique_name("with");
  Process privileged(holder_argv(with_caps, false), pod.container(false));
  const std::string record = pod.host_dir() + "/" + with_caps + ".holder.json";
  EXPECT_TRUE(wait_until([&] { return ::access(record.c_str(), F_OK) == 0; }, 10s))
      << privileged.err();
  privileged.kill(SIGTERM);
  (void)privileged.wait(10s);

  Process dropped(holder_argv(unique_name("without"), false), pod.container());
  auto status = dropped.wait(10s);
  ASSERT_TRUE(status.has_value()) << "the holder without CAP_DAC_OVERRIDE kept running";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) != 0);
  EXPECT_NE(dropped.err().find("Permission denied"), std::string::npos) << dropped.err();
}

// The preStop guard, without capabilities, sees a Ceph-like session in the
// pod's namespace, keeps the pod from going while it lasts, and lets it go
// once it is closed. The "session" is a loopback TCP connection to port 6789
// inside the test's own namespace.
TEST(HolderSecurityContext, GuardSeesSessionsWithoutCapabilities) {
  NETNS_REQUIRE_ROOT();
  NETNS_REQUIRE_STATIC_HOLDER();
  Pod pod;
  const auto session = ceph_like_session(pod);

  const RunOptions in_container = pod.in_container();
  const std::vector<std::string> own = {"--netns", "/proc/self/ns/net", "--allow-own-netns"};
  auto with = [&](std::vector<std::string> argv) {
    argv.insert(argv.end(), own.begin(), own.end());
    return argv;
  };
  auto count = run_command(with({"/usr/bin/netns-exec", "guard", "--count"}), in_container);
  EXPECT_TRUE(count.ok()) << count.describe();
  EXPECT_EQ(count.out, "1\n");

  auto busy = run_command(with({"/usr/bin/netns-exec", "guard", "--wait-idle", "--max-wait", "1s",
                                "--log-interval", "200ms"}),
                          in_container);
  EXPECT_EQ(busy.exit_code, 124) << busy.describe();
  EXPECT_NE(busy.err.find("127.0.0.1:6789"), std::string::npos) << busy.err;

  session->kill(SIGKILL);
  (void)session->wait(5s);
  auto idle = run_command(manifest("any", false).guard, in_container);
  EXPECT_TRUE(idle.ok()) << idle.describe();
}

// An in-place replacement announced the way scripts/upgrade-holders.sh does
// it (kubectl exec of netns-exec guard --announce-replacement in the holder
// container) lets the chart's preStop guard through at once, with a Ceph-like
// session live and every capability dropped. The control: the same guard,
// unannounced, holds the stop until its --max-wait and exits 124.
TEST(HolderSecurityContext, AnnouncedReplacementIsLetThrough) {
  NETNS_REQUIRE_ROOT();
  NETNS_REQUIRE_STATIC_HOLDER();
  Pod pod;
  const std::string id = unique_name("swap");
  const ChartHolder facts = manifest(id, false);
  Process holder(facts.command, pod.container());
  const RunOptions in_container = pod.in_container();
  const RunResult check = probe_until_ready(facts, in_container);
  ASSERT_TRUE(check.ok()) << check.describe() << holder.err();
  const auto session = ceph_like_session(pod);

  // The control: the chart's guard (5 s wait), nothing announced.
  auto held = run_command(facts.guard, in_container);
  EXPECT_EQ(held.exit_code, 124) << held.describe();
  EXPECT_NE(holder.err().find("netns-exec guard: holding the stop"), std::string::npos)
      << holder.err();

  const std::string record = std::string(kPodDir) + "/" + id + ".holder.json";
  auto announced =
      run_command({"/usr/bin/netns-exec", "guard", "--announce-replacement", "2m", "--netns",
                   "/proc/self/ns/net", "--allow-own-netns", "--holder-record", record},
                  in_container);
  ASSERT_TRUE(announced.ok()) << announced.describe();
  const std::string notice = pod.host_dir() + "/" + id + ".replacing";
  EXPECT_EQ(::access(notice.c_str(), F_OK), 0) << "no notice at " << notice;

  auto let_through = run_command(facts.guard, in_container);
  EXPECT_TRUE(let_through.ok()) << let_through.describe();
  EXPECT_NE(holder.err().find("in-place replacement announced for holder pid " +
                              std::to_string(holder.pid()) +
                              ": not holding; 1 established storage sessions stay"),
            std::string::npos)
      << holder.err();
  EXPECT_NE(::access(notice.c_str(), F_OK), 0) << "the guard left the used notice behind";

  session->kill(SIGKILL);
  (void)session->wait(5s);
  holder.kill(SIGTERM);
  (void)holder.wait(10s);
}
