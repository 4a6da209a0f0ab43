// Provenance over every hop (common/include/netns/trusted_path.hpp): every
// directory and symlink a path goes through, the link's own target path and
// the way to ceph-csi's config included, is judged as it is walked from "/".
// Each refusal is 125 and the command did not run; each has a control that
// runs through the same arrangement with only the faulty hop made right.
// (The fault matrix has the same faults against a live netns-holder.)
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>

#include "exec_fixture.hpp"
#include "netns_exec/source.hpp"

namespace netns::test::exec {
namespace {

constexpr uid_t kNobody = 65534;

struct EveryHop : HeldExecFixture {
  void mkdir_mode(const std::string& path, mode_t mode) const {
    ASSERT_EQ(::mkdir(path.c_str(), mode), 0) << path;
    ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
  }
  void ln(const std::string& target, const std::string& path) const {
    ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path;
  }
  void ran(const RunResult& r, const std::string& what) const {
    EXPECT_TRUE(r.ok()) << what << ": " << r.describe();
    EXPECT_TRUE(marker_exists()) << what << ": the command did not run";
    ::unlink(marker.c_str());
  }
};

// The link's target path runs through a directory uid 65534 owns: it could
// put any namespace there at any moment. The control: the same tree, root's.
TEST_F(EveryHop, ALinkWhoseTargetRunsThroughAUsersDirectoryIsRefused) {
  const std::string tree = tmp / "tree";
  mkdir_mode(tree, 0755);
  ln(ns->ns_path(), tree + "/net");
  const std::string dir = tmp / "d";
  mkdir_mode(dir, 0755);
  publish(dir, record_for("ceph-a", ns->pid(), ns->ns_id()), tree + "/net");
  ran(exec_touch({"run", "--netns", dir + "/ceph-a.net.ns"}), "control: root's tree");

  ASSERT_EQ(::chown(tree.c_str(), kNobody, kNobody), 0);
  expect_refused(exec_touch({"run", "--netns", dir + "/ceph-a.net.ns"}),
                 {"directory \"" + tree + "\"", "on the way to", "owned by uid 65534"});
  // A symlink on the way that the user owns, in a root directory.
  ASSERT_EQ(::chown(tree.c_str(), 0, 0), 0);
  ASSERT_EQ(::lchown((tree + "/net").c_str(), kNobody, kNobody), 0);
  expect_refused(exec_touch({"run", "--netns", dir + "/ceph-a.net.ns"}),
                 {"symlink \"" + tree + "/net\"", "owned by uid 65534"});
}

// A relative path is walked from "/" through the working directory.
TEST_F(EveryHop, ARelativePathIsWalkedThroughTheWorkingDirectory) {
  const std::string script = "cd \"$1\" && exec \"$2\" run --netns ceph-a.net.ns -- touch \"$3\"";
  ran(run_command({"sh", "-c", script, "sh", holder_dir, NETNS_EXEC_BIN, marker}), "control");
  ASSERT_EQ(::chown(tmp.path().c_str(), kNobody, kNobody), 0);
  RunResult r = run_command({"sh", "-c", script, "sh", holder_dir, NETNS_EXEC_BIN, marker});
  ASSERT_EQ(::chown(tmp.path().c_str(), 0, 0), 0);
  expect_refused(r, {"owned by uid 65534", "ceph-a.net.ns"});
}

// A /proc link in the middle of a path that leads out of /proc (a process's
// root or cwd) is not walked into: its way from "/" is unknown.
TEST_F(EveryHop, AProcLinkOutOfProcInTheMiddleIsRefused) {
  expect_refused(exec_touch({"run", "--netns", "/proc/self/root" + link}), {"leads out of /proc"});
  // The kernel's own links at the end still work (util-linux's usual path),
  // with the opt-in: no holder record vouches for them.
  ran(exec_touch({"run", "--allow-unrecorded-netns", "--netns",
                  "/proc/" + std::to_string(ns->pid()) + "/ns/net"}),
      "/proc/PID/ns/net");
}

// ceph-csi's config as the kubelet mounts a ConfigMap: a 0777 root
// directory on a read-only mount, config.json -> ..data/config.json,
// ..data -> ..<timestamp>. Read-only, nobody can write it through that
// mount: accepted. The same tree writable (no read-only mount): refused.
// The mount is made in a private mount namespace of the netns-exec process.
TEST_F(EveryHop, AConfigMapVolumeIsTrustedOnlyReadOnly) {
  const std::string cm = tmp / "cm";
  mkdir_mode(cm, 0777);
  mkdir_mode(cm + "/..2026_12_02_01_00_00.1", 0755);
  {
    UniqueFd d = open_fd(cm + "/..2026_12_02_01_00_00.1", O_RDONLY | O_DIRECTORY);
    write_file_atomic(
        d.get(), "config.json",
        "[{\"clusterID\": \"ceph-a\", \"rbd\": {\"netNamespaceFilePath\": \"" + link + "\"}}]",
        0644, cm);
  }
  ln("..2026_12_02_01_00_00.1", cm + "/..data");
  ln("..data/config.json", cm + "/config.json");
  const std::string script =
      "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && "
      "exec \"$2\" run --cluster-id ceph-a --config \"$1/config.json\" -- touch \"$3\"";
  ran(run_command({"unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", cm,
                   NETNS_EXEC_BIN, marker}),
      "a read-only ConfigMap volume");
  expect_refused(exec_touch({"run", "--cluster-id", "ceph-a", "--config", cm + "/config.json"}),
                 {"directory \"" + cm + "\"", "writable by group or others", "0777"});
}

// doctor names the check and the hop.
TEST_F(EveryHop, DoctorPrintsTheCheck) {
  auto good = netns::exec::inspect_source(netns::exec::Source::netns_path(link));
  auto it = std::find_if(good.findings.begin(), good.findings.end(), [](const trust::Finding& f) {
    return std::string(f.check) == "every hop trusted";
  });
  ASSERT_NE(it, good.findings.end());
  EXPECT_TRUE(it->ok) << it->detail;

  const std::string sticky = tmp / "sticky";
  mkdir_mode(sticky, 01777);
  ln(holder_dir, sticky + "/h");
  ASSERT_EQ(::lchown((sticky + "/h").c_str(), kNobody, kNobody), 0);
  auto bad =
      netns::exec::inspect_source(netns::exec::Source::netns_path(sticky + "/h/ceph-a.net.ns"));
  ASSERT_FALSE(bad.findings.empty());
  EXPECT_STREQ(bad.findings.back().check, "every hop trusted");
  EXPECT_FALSE(bad.findings.back().ok);
  EXPECT_THAT(bad.findings.back().detail, testing::HasSubstr("symlink \"" + sticky + "/h\""));
  ASSERT_TRUE(bad.error.has_value());
}

}  // namespace
}  // namespace netns::test::exec
