// What the command sees and how its end is reported: the holder's network
// namespace with the caller's mount namespace, the SPEC exit codes, bounded
// output, the nsenter form, and waiting for a holder that publishes late.
#include <signal.h>
#include <sys/mount.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "exec_fixture.hpp"
#include "holder_helpers.hpp"
#include "netns/error.hpp"

namespace netns::test::exec {
namespace {

using Clock = std::chrono::steady_clock;

std::string ns_link(const std::string& which) {
  char buf[64];
  ssize_t n = ::readlink(("/proc/self/ns/" + which).c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

struct ExecRun : ExecFixture {};

TEST_F(ExecRun, ChildIsInTheHoldersNetnsAndTheCallersMountNamespace) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  auto r = exec({"run", "--netns", holder_dir + "/ceph-a.net.ns", "--", "readlink",
                 "/proc/self/ns/net", "/proc/self/ns/mnt"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, "net:[" + std::to_string(ns.ns_id().ino) + "]\n" + ns_link("mnt") + "\n");
  EXPECT_NE(ns_link("net"), "net:[" + std::to_string(ns.ns_id().ino) + "]");
}

TEST_F(ExecRun, AMountMadeByTheCommandIsVisibleToTheCaller) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  std::string point = tmp / "mnt";
  ASSERT_EQ(::mkdir(point.c_str(), 0755), 0);
  auto r = exec({"run", "--netns", holder_dir + "/ceph-a.net.ns", "--", "mount", "-t", "tmpfs",
                 "exec-test", point});
  ASSERT_TRUE(r.ok()) << r.describe();
  std::string mounts = read_file("/proc/self/mountinfo", 16 << 20);
  EXPECT_NE(mounts.find(" " + point + " "), std::string::npos) << "mount not visible here";
  ::umount2(point.c_str(), MNT_DETACH);
}

TEST_F(ExecRun, ExitCodes) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  EXPECT_EQ(exec({"run", "--netns", link, "--", "sh", "-c", "exit 7"}).exit_code, 7);
  auto nf = exec({"run", "--netns", link, "--", "no-such-command-" + unique_name("x")});
  EXPECT_EQ(nf.exit_code, 127) << nf.describe();
  EXPECT_NE(nf.err.find("ENOENT"), std::string::npos) << nf.err;

  std::string script = tmp / "not-executable.sh";
  { std::ofstream(script) << "#!/bin/sh\ntouch " << marker << "\n"; }
  ::chmod(script.c_str(), 0644);
  auto ne = exec({"run", "--netns", link, "--", script});
  EXPECT_EQ(ne.exit_code, 126) << ne.describe();
  EXPECT_FALSE(marker_exists());

  auto sig = exec({"run", "--netns", link, "--", "sh", "-c", "kill -9 $$"});
  EXPECT_EQ(sig.exit_code, 128 + SIGKILL) << sig.describe();
}

TEST_F(ExecRun, TimeoutKillsTheWholeProcessGroup) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  std::string pidfile = tmp / "grandchild.pid";
  auto start = Clock::now();
  auto r = exec({"run", "--timeout", "300ms", "--kill-grace", "200ms", "--netns",
                 holder_dir + "/ceph-a.net.ns", "--", "sh", "-c",
                 "trap '' TERM; sleep 60 & echo $! > " + pidfile + "; wait"});
  EXPECT_EQ(r.exit_code, 124) << r.describe();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
  EXPECT_NE(r.err.find("timed out"), std::string::npos) << r.err;
  pid_t grandchild = std::stoi(read_file(pidfile));
  // Killed with the group; reparented, it may linger as a zombie for a moment.
  EXPECT_TRUE(wait_until([&] { return netns::test::process_gone(grandchild); }, 5s))
      << "pid " << grandchild << " survived the timeout";
}

TEST_F(ExecRun, OutputFloodIsBoundedAndFlagged) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  auto r =
      exec({"run", "--json", "--output-limit", "4096", "--netns", holder_dir + "/ceph-a.net.ns",
            "--", "sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' a; echo END"});
  ASSERT_TRUE(r.ok()) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["stdout"]["truncated"], true);
  EXPECT_EQ(doc["stdout"]["total_bytes"], 5000004);
  std::string data = doc["stdout"]["data"];
  EXPECT_EQ(data.size(), 4096u);
  EXPECT_EQ(data.substr(data.size() - 4), "END\n") << "the tail is kept";
  EXPECT_EQ(doc["exit_code"], 0);
  EXPECT_EQ(doc["netns"]["ino"], ns.ns_id().ino);
  EXPECT_EQ(doc["netns"]["holder"]["pid"], ns.pid());
}

TEST_F(ExecRun, JsonRedactsTheCommandLineNotTheCommandsOutput) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  auto r = exec({"run", "--json", "--netns", holder_dir + "/ceph-a.net.ns", "--", "sh", "-c",
                 "echo mount -o name=admin,secret=AQBsecret1== >&2", "x", "--key", "AQBsecret2"});
  ASSERT_TRUE(r.ok()) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["command"].dump().find("AQBsecret2"), std::string::npos) << r.out;
  EXPECT_NE(doc["command"].dump().find("<redacted>"), std::string::npos) << r.out;
  // The command's bytes are its own: redaction is for our messages only.
  EXPECT_EQ(doc["stderr"]["data"], "mount -o name=admin,secret=AQBsecret1==\n") << r.out;
}

TEST_F(ExecRun, EmptyNetNamespaceFilePathRunsInOwnNamespaceAndSaysSo) {
  std::string cfg = config(R"([{"clusterID":"ceph-a","rbd":{"netNamespaceFilePath":""}},
                               {"clusterID":"ceph-b","monitors":[]}])");
  for (const char* id : {"ceph-a", "ceph-b"}) {
    auto r = exec({"run", "--json", "--cluster-id", id, "--config", cfg, "--", "readlink",
                   "/proc/self/ns/net"});
    ASSERT_TRUE(r.ok()) << r.describe();
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["netns"]["own_namespace"], true);
    EXPECT_EQ(doc["stdout"]["data"], ns_link("net") + "\n");
    EXPECT_NE(r.err.find("caller's own network namespace"), std::string::npos) << r.err;
  }
}

// ceph-csi decodes config.json with Go's encoding/json: "RBD" and
// "NetNamespaceFilePath" are its rbd.netNamespaceFilePath, and of "rbd" and
// "Rbd" the later wins. netns-exec must run where ceph-csi's commands run
// (the holder), not in its own namespace (here the host's) nor in the first
// section's. The control: a key Go does not fold ("R_BD") names no holder,
// and the command runs here, with the warning.
TEST_F(ExecRun, ConfigKeysAreReadAsCephCsiReadsThem) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  const std::string holder_ns = "net:[" + std::to_string(ns.ns_id().ino) + "]\n";
  for (
      const std::string& entry :
      {R"("RBD": {"NetNamespaceFilePath": ")" + link + R"("})",
       R"("rbd": {"netNamespaceFilePath": "/nowhere/ceph-a.net.ns"}, "Rbd": {"netNamespaceFilePath": ")" +
           link + R"("})"}) {
    std::string cfg = config(R"([{"ClusterID": "ceph-a", )" + entry + "}]");
    auto r = exec(
        {"run", "--cluster-id", "ceph-a", "--config", cfg, "--", "readlink", "/proc/self/ns/net"});
    ASSERT_TRUE(r.ok()) << entry << ": " << r.describe();
    EXPECT_EQ(r.out, holder_ns) << entry;
  }
  std::string cfg =
      config(R"([{"clusterID": "ceph-a", "R_BD": {"netNamespaceFilePath": ")" + link + R"("}}])");
  auto r = exec({"run", "--json", "--cluster-id", "ceph-a", "--config", cfg, "--", "readlink",
                 "/proc/self/ns/net"});
  ASSERT_TRUE(r.ok()) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["stdout"]["data"], ns_link("net") + "\n");
  EXPECT_NE(doc["netns"]["warning"].get<std::string>().find("rbd.netNamespaceFilePath"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("has an entry in"), std::string::npos) << r.err;
}

TEST_F(ExecRun, ClusterIdFromConfig) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  std::string cfg = config(R"([{"clusterID":"ceph-a","cephFS":{"netNamespaceFilePath":")" +
                           holder_dir + R"(/ceph-a.net.ns"}}])");
  auto r = exec({"run", "--cluster-id", "ceph-a", "--kind", "cephfs", "--identity", "require",
                 "--config", cfg, "--", "readlink", "/proc/self/ns/net"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, "net:[" + std::to_string(ns.ns_id().ino) + "]\n");
}

TEST_F(ExecRun, InstalledAsNsenter) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  std::string nsenter = tmp / "nsenter";
  ASSERT_EQ(::symlink(NETNS_EXEC_BIN, nsenter.c_str()), 0);
  RunOptions with_stdin;
  with_stdin.stdin_data = "through stdin\n";
  auto r = run_command({nsenter, "--net=" + holder_dir + "/ceph-a.net.ns", "--", "sh", "-c",
                        "readlink /proc/self/ns/net; cat; exit 3"},
                       with_stdin);
  EXPECT_EQ(r.exit_code, 3) << r.describe();
  EXPECT_EQ(r.out, "net:[" + std::to_string(ns.ns_id().ino) + "]\nthrough stdin\n");
  EXPECT_EQ(r.err, "");
  // Without "--", as nsenter allows.
  auto r2 = run_command({nsenter, "--net=" + holder_dir + "/ceph-a.net.ns", "true"});
  EXPECT_TRUE(r2.ok()) << r2.describe();
  // Any other namespace is util-linux nsenter's call, handed over untouched
  // (exec_nsenter_dropin_test compares every such form byte for byte).
  auto other = run_command({nsenter, "--mount=/proc/1/ns/mnt", "--", "true"});
  auto real = run_command({"/usr/bin/nsenter", "--mount=/proc/1/ns/mnt", "--", "true"});
  EXPECT_EQ(other.exit_code, real.exit_code) << other.describe();
  EXPECT_EQ(other.err, real.err) << other.describe();
}

TEST_F(ExecRun, WaitHolderWakesWhenTheHolderPublishes) {
  // The directory does not exist yet either: the watch climbs to its parent.
  std::string dir = tmp / "late/dir";
  Process waiting({NETNS_EXEC_BIN, "run", "--wait-holder", "30s", "--netns", dir + "/ceph-a.net.ns",
                   "--", "sh", "-c", "touch " + marker});
  // Published once netns-exec watches (an inotify watch), not after a sleep.
  ASSERT_TRUE(
      wait_until([&] { return watching_with_inotify(waiting.pid()) || !waiting.running(); }, 10s));
  ASSERT_TRUE(waiting.running()) << "returned before anything was published: " << waiting.err();
  ASSERT_EQ(::mkdir((tmp / "late").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  NetnsChild ns;
  auto published = Clock::now();
  publish_holder(dir, "ceph-a", ns);
  auto status = waiting.wait(10s);
  ASSERT_TRUE(status) << "still waiting after the holder published";
  EXPECT_LT(Clock::now() - published, scaled(std::chrono::seconds(2)));
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << waiting.err();
  EXPECT_TRUE(marker_exists());
}

TEST_F(ExecRun, SignalsEndTheWaitAndAreForwardedToTheCommand) {
  // While waiting for a holder, SIGTERM ends netns-exec itself.
  Process waiting({NETNS_EXEC_BIN, "run", "--wait-holder", "60s", "--netns",
                   holder_dir + "/ceph-a.net.ns", "--", "sh", "-c", "touch " + marker});
  ASSERT_TRUE(
      wait_until([&] { return watching_with_inotify(waiting.pid()) || !waiting.running(); }, 10s));
  ASSERT_TRUE(waiting.running()) << waiting.err();
  waiting.kill(SIGTERM);
  auto status = waiting.wait(5s);
  ASSERT_TRUE(status) << "SIGTERM did not end the wait";
  EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGTERM);
  EXPECT_FALSE(marker_exists());

  // While the command runs, SIGTERM is the command's.
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  std::string ready = tmp / "ready";
  Process running(
      {NETNS_EXEC_BIN, "run", "--netns", holder_dir + "/ceph-a.net.ns", "--", "sh", "-c",
       "trap 'echo got TERM; exit 9' TERM; touch " + ready + "; while :; do sleep 0.05; done"});
  ASSERT_TRUE(wait_until([&] { return ::access(ready.c_str(), F_OK) == 0; }, 5s));
  running.kill(SIGTERM);
  auto rs = running.wait(5s);
  ASSERT_TRUE(rs) << "the command did not get SIGTERM";
  EXPECT_TRUE(WIFEXITED(*rs) && WEXITSTATUS(*rs) == 9) << running.err();
  EXPECT_EQ(running.out(), "got TERM\n");
}

TEST_F(ExecRun, RealHolderLinkAndSocket) {
  // netns-exec waits; the real holder starts later and publishes.
  Process waiting({NETNS_EXEC_BIN, "run", "--wait-holder", "30s", "--identity", "require",
                   "--netns", holder_dir + "/ceph-r.net.ns", "--", "readlink",
                   "/proc/self/ns/net"});
  ASSERT_TRUE(
      wait_until([&] { return watching_with_inotify(waiting.pid()) || !waiting.running(); }, 10s));
  ASSERT_TRUE(waiting.running()) << waiting.err();
  holder_test::Holder holder(holder_dir, "ceph-r", {"--socket"});
  ASSERT_TRUE(holder.wait_ready()) << holder.err();
  auto status = waiting.wait(10s);
  ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << waiting.err();
  const std::string expect = "net:[" + std::to_string(holder.ns_id().ino) + "]\n";
  EXPECT_EQ(waiting.out(), expect);

  auto via_socket = exec(
      {"run", "--socket", holder_dir + "/ceph-r.net.sock", "--", "readlink", "/proc/self/ns/net"});
  EXPECT_TRUE(via_socket.ok()) << via_socket.describe();
  EXPECT_EQ(via_socket.out, expect);

  // Once the holder is gone, the same call is refused.
  holder.stop();
  auto after = exec_touch({"run", "--netns", holder_dir + "/ceph-r.net.ns"});
  EXPECT_EQ(after.exit_code, 125) << after.describe();
  EXPECT_FALSE(marker_exists());
}

}  // namespace
}  // namespace netns::test::exec
