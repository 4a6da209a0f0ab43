// Every way the namespace source can be wrong: netns-exec refuses with exit
// 125 and one message naming the cluster and/or path, the step, the errno
// text and what to check, and the command never runs.
#include <sys/socket.h>
#include <sys/un.h>

#include <chrono>
#include <cstring>

#include "exec_fixture.hpp"

namespace netns::test::exec {
namespace {

using Clock = std::chrono::steady_clock;

struct ExecBadInput : ExecFixture {};

TEST_F(ExecBadInput, ValidHolderRunsTheCommand) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-ok", ns);
  auto r = exec_touch({"run", "--identity", "require", "--netns", holder_dir + "/ceph-ok.net.ns"});
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_TRUE(marker_exists());
}

TEST_F(ExecBadInput, MissingFileWithoutWait) {
  std::string path = holder_dir + "/ceph-a.net.ns";
  auto r = exec_touch({"run", "--netns", path});
  expect_refused(r, {"cluster \"ceph-a\"", path, "open namespace file",
                     "No such file or directory (ENOENT)", "netns-holder pod for cluster"});
}

TEST_F(ExecBadInput, MissingFileWithWaitTimesOut) {
  std::string path = holder_dir + "/ceph-a.net.ns";
  auto start = Clock::now();
  auto r = exec_touch({"run", "--wait-holder", "400ms", "--netns", path});
  auto took = Clock::now() - start;
  expect_refused(r, {path, "after waiting 400ms", "ENOENT"});
  EXPECT_GE(took, std::chrono::milliseconds(400));
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST_F(ExecBadInput, MissingDirectory) {
  std::string path = tmp / "no-such-dir/ceph-a.net.ns";
  auto r = exec_touch({"run", "--wait-holder", "100ms", "--netns", path});
  expect_refused(r, {"directory of", "does not exist", "ENOENT", "ceph-a"});
}

TEST_F(ExecBadInput, DanglingLink) {
  pid_t dead;
  {
    NetnsChild gone;
    dead = gone.pid();
    publish_holder(holder_dir, "ceph-a", gone);
  }
  auto r = exec_touch({"run", "--netns", holder_dir + "/ceph-a.net.ns"});
  expect_refused(r, {"dangling symlink", "/proc/" + std::to_string(dead) + "/ns/net", "ENOENT",
                     "netns-holder pod for cluster \"ceph-a\""});
}

TEST_F(ExecBadInput, LinkToAnotherProcessWhileRecordNamesTheHolder) {
  // The holder died and its pid now belongs to someone else: modelled as a
  // link to process A's namespace while the record describes live holder B.
  NetnsChild other, holder;
  publish(holder_dir, record_for("ceph-a", holder.pid(), holder.ns_id()), other.ns_path());
  auto r = exec_touch({"run", "--netns", holder_dir + "/ceph-a.net.ns"});
  expect_refused(r, {"check holder identity", "ceph-a.holder.json",
                     "net:[" + std::to_string(other.ns_id().ino) + "]"});
}

TEST_F(ExecBadInput, ReusedPidIsStale) {
  NetnsChild ns;
  auto record = record_for("ceph-a", ns.pid(), ns.ns_id());
  record.pid_start_time += 1;  // the recorded holder started at another time
  publish(holder_dir, record, ns.ns_path());
  auto r = exec_touch({"run", "--netns", holder_dir + "/ceph-a.net.ns"});
  expect_refused(r, {"check holder identity", "was reused", "ceph-a"});
}

TEST_F(ExecBadInput, RecordFromAnotherPidNamespace) {
  NetnsChild ns;
  auto record = record_for("ceph-a", ns.pid(), ns.ns_id());
  record.pidns_ino += 1;
  publish(holder_dir, record, ns.ns_path());
  auto r = exec_touch({"run", "--netns", holder_dir + "/ceph-a.net.ns"});
  expect_refused(
      r, {"another pid namespace", "names another process for us", "hostPID: true", "--socket"});
}

TEST_F(ExecBadInput, LinkFromAnotherPidNamespaceIsNotCalledDangling) {
  // A hostPID holder's link read from a pod's own pid namespace: /proc/<pid>
  // is nobody here, so the link dangles; the record says why.
  pid_t dead;
  NsId ns_id;
  {
    NetnsChild gone;
    dead = gone.pid();
    ns_id = gone.ns_id();
  }
  auto record = record_for("ceph-a", dead, ns_id);
  record.pidns_ino += 1;
  publish(holder_dir, record, "/proc/" + std::to_string(dead) + "/ns/net");
  auto r = exec_touch({"run", "--netns", holder_dir + "/ceph-a.net.ns"});
  expect_refused(r, {"another pid namespace", "/proc/" + std::to_string(dead),
                     "names another process for us", "hostPID: true", "--socket"});
  EXPECT_EQ(r.err.find("gone"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("dangling"), std::string::npos) << r.err;
}

TEST_F(ExecBadInput, RequiredRecordMissing) {
  NetnsChild ns;
  UniqueFd d = open_fd(holder_dir, O_RDONLY | O_DIRECTORY);
  symlink_atomic(d.get(), "ceph-a.net.ns", ns.ns_path(), holder_dir);
  auto r = exec_touch({"run", "--identity", "require", "--netns", holder_dir + "/ceph-a.net.ns"});
  expect_refused(r, {"check holder identity", "ceph-a.holder.json", "ENOENT"});
  // So does the default (require): a holder's link must come with its record.
  auto by_default = exec_touch({"run", "--netns", holder_dir + "/ceph-a.net.ns"});
  expect_refused(by_default,
                 {"check holder identity", "must come with its record", "--identity if-present"});
  // --identity if-present accepts a record-less (Rook-era) link.
  auto ok =
      exec_touch({"run", "--identity", "if-present", "--netns", holder_dir + "/ceph-a.net.ns"});
  EXPECT_TRUE(ok.ok()) << ok.describe();
}

TEST_F(ExecBadInput, OwnNamespace) {
  UniqueFd d = open_fd(holder_dir, O_RDONLY | O_DIRECTORY);
  symlink_atomic(d.get(), "ceph-a.net.ns", "/proc/" + std::to_string(::getpid()) + "/ns/net",
                 holder_dir);
  auto r = exec_touch({"run", "--netns", holder_dir + "/ceph-a.net.ns"});
  expect_refused(r, {"check not own namespace", "ceph-a.net.ns", "own network namespace",
                     "--allow-own-netns"});
}

TEST_F(ExecBadInput, MountNamespaceFile) {
  auto r = exec_touch({"run", "--netns", "/proc/self/ns/mnt"});
  expect_refused(
      r, {"check namespace type", "/proc/self/ns/mnt", "mnt namespace", "not a network namespace"});
}

TEST_F(ExecBadInput, RegularFile) {
  std::string path = config("not a namespace\n");
  auto r = exec_touch({"run", "--netns", path});
  expect_refused(r, {"check namespace type", path, "not a namespace file", "nsfs"});
}

TEST_F(ExecBadInput, Directory) {
  auto r = exec_touch({"run", "--netns", holder_dir});
  expect_refused(r, {"check namespace type", holder_dir, "not a namespace file"});
}

TEST_F(ExecBadInput, SymlinkLoop) {
  ASSERT_EQ(::symlink("b.net.ns", (holder_dir + "/a.net.ns").c_str()), 0);
  ASSERT_EQ(::symlink("a.net.ns", (holder_dir + "/b.net.ns").c_str()), 0);
  auto r = exec_touch({"run", "--wait-holder", "1s", "--netns", holder_dir + "/a.net.ns"});
  expect_refused(r, {"open namespace file", "a.net.ns", "(ELOOP)", "cluster \"a\""});
}

TEST_F(ExecBadInput, ClusterAbsentFromConfig) {
  std::string cfg = config(R"([{"clusterID":"other","rbd":{"netNamespaceFilePath":"/x"}}])");
  auto r = exec_touch({"run", "--cluster-id", "ceph-a", "--config", cfg});
  expect_refused(r, {"cluster \"ceph-a\"", "look up cluster", "is not in", cfg, "ConfigMap"});
}

TEST_F(ExecBadInput, MalformedConfig) {
  std::string cfg = config(R"([{"clusterID":"ceph-a", "rbd": )");
  auto r = exec_touch({"run", "--cluster-id", "ceph-a", "--config", cfg});
  expect_refused(r, {"cluster \"ceph-a\"", "look up cluster", "parse", cfg, "valid JSON"});
}

TEST_F(ExecBadInput, MissingConfig) {
  std::string cfg = tmp / "absent.json";
  auto r = exec_touch({"run", "--cluster-id", "ceph-a", "--config", cfg});
  expect_refused(r, {"cluster \"ceph-a\"", cfg, "ENOENT", "ConfigMap mounted"});
}

TEST_F(ExecBadInput, TraversalInClusterId) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  std::string cfg = config(R"([{"clusterID":"../ceph-a","rbd":{"netNamespaceFilePath":")" +
                           holder_dir + R"(/ceph-a.net.ns"}}])");
  auto r = exec_touch({"run", "--cluster-id", "../ceph-a", "--config", cfg});
  expect_refused(r, {"\"../ceph-a\"", "look up cluster"});
}

TEST_F(ExecBadInput, SocketWithNoHolder) {
  std::string path = holder_dir + "/ceph-a.net.sock";
  {
    UniqueFd s = make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  }  // closed without listening: the file stays, nobody answers
  auto r = exec_touch({"run", "--socket", path});
  expect_refused(r, {"connect to holder socket", path, "(ECONNREFUSED)", "no holder is listening",
                     "netns-holder pod for cluster \"ceph-a\""});
}

TEST_F(ExecBadInput, MissingSocket) {
  std::string path = holder_dir + "/ceph-a.net.sock";
  auto r = exec_touch({"run", "--socket", path});
  expect_refused(r, {"connect to holder socket", path, "(ENOENT)"});
}

TEST_F(ExecBadInput, NoSourceAndTwoSources) {
  auto none = exec_touch({"run"});
  EXPECT_EQ(none.exit_code, 125) << none.describe();
  EXPECT_NE(none.err.find("exactly one namespace source"), std::string::npos) << none.err;
  auto two = exec_touch({"run", "--netns", "/x", "--socket", "/y"});
  EXPECT_EQ(two.exit_code, 125) << two.describe();
  EXPECT_FALSE(marker_exists());
}

TEST_F(ExecBadInput, NsenterFormRefusesTheSameWay) {
  auto r = exec({"--net=" + holder_dir + "/ceph-a.net.ns", "--", "sh", "-c", "touch " + marker});
  expect_refused(r, {"ceph-a.net.ns", "ENOENT"});
}

TEST_F(ExecBadInput, JsonRefusalIsADocumentOnStdout) {
  auto r = exec({"run", "--json", "--netns", holder_dir + "/ceph-a.net.ns", "--", "sh", "-c",
                 "touch " + marker});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_FALSE(marker_exists());
  EXPECT_NE(r.out.find(R"("code":"not_found")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("exit_code":125)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace netns::test::exec
