// netns-exec map | unmap | mount | umount: the SOURCE is validated first,
// secrets never show, and results reach the caller's mount namespace.
// (No rbd/ceph kernel modules here: those paths end in a clear refusal.)
#include <sys/mount.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "exec_fixture.hpp"

namespace netns::test::exec {
namespace {

using ExecCephCli = HeldExecFixture;

TEST_F(ExecCephCli, MapRefusesABadSourceBeforeAnythingElse) {
  auto r = exec({"map", "--netns", holder_dir + "/ceph-b.net.ns", "--pool", "p", "--image", "i",
                 "--mon", "198.18.0.1:6789", "--id", "admin", "--keyfile", "/dev/null"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_NE(r.err.find("ceph-b.net.ns"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ENOENT"), std::string::npos) << r.err;
}

TEST_F(ExecCephCli, MapKeyFromStdinNeverShows) {
  RunOptions options;
  options.stdin_data = "AQBsecretXYZ==\n";
  auto r = exec({"map", "--json", "--netns", link, "--pool", "p", "--image", "i", "--mon",
                 "198.18.0.1:6789", "--id", "admin", "--key-stdin", "--timeout", "10s"},
                options);
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out.find("AQBsecret"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("AQBsecret"), std::string::npos) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["operation"], "map");
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["netns"]["ino"], ns->ns_id().ino);
  // Not the initial namespace: krbd must not wait for udev.
  std::string argv = doc["command"].dump();
  EXPECT_NE(argv.find("noudev"), std::string::npos) << argv;
  EXPECT_EQ(argv.find("AQBsecret"), std::string::npos) << argv;
}

// The argv netns-exec reports in --json's "command" is ceph-csi's shape, with
// every flag (golden lists; the library's are in ceph_operations_test.cpp).
// Here the command does not get far (no module, or an unreachable monitor),
// but "command" is what was (or would have been) run.
TEST_F(ExecCephCli, JsonCommandIsCephCsisArgvForEveryFlag) {
  auto map = exec({"map",
                   "--json",
                   "--netns",
                   link,
                   "--pool",
                   "rbd",
                   "--rados-namespace",
                   "ns1",
                   "--image",
                   "vol-1",
                   "--snap",
                   "s1",
                   "--mon",
                   "198.18.0.1:6789",
                   "--mon",
                   "198.18.0.2:6789",
                   "--id",
                   "csi-rbd-node",
                   "--keyfile",
                   "/k",
                   "--options",
                   "lock_on_read",
                   "--read-only",
                   "--timeout",
                   "5s"});
  auto doc = nlohmann::json::parse(map.out);
  EXPECT_EQ(
      doc["command"],
      nlohmann::json::array({"rbd", "--id", "csi-rbd-node", "-m", "198.18.0.1:6789,198.18.0.2:6789",
                             "--keyfile=/k", "map", "rbd/ns1/vol-1@s1", "--device-type", "krbd",
                             "--options", "noudev", "--options", "lock_on_read", "--read-only"}))
      << map.out;

  auto unmap = exec(
      {"unmap", "--json", "--netns", link, "/dev/rbd9", "--options", "force", "--timeout", "5s"});
  doc = nlohmann::json::parse(unmap.out);
  EXPECT_EQ(doc["command"],
            nlohmann::json::array({"rbd", "unmap", "/dev/rbd9", "--device-type", "krbd",
                                   "--options", "noudev", "--options", "force"}))
      << unmap.out;

  std::string point = tmp / "golden";
  ::mkdir(point.c_str(), 0755);
  auto mount = exec({"mount",     "--json",      "--netns",   link,
                     "--type",    "ceph",        "--mon",     "198.18.0.1:6789",
                     "--path",    "/volumes/v1", "--fs",      "myfs",
                     "-o",        "ms_mode=crc", "--id",      "csi-cephfs-node",
                     "--keyfile", "/k",          "--timeout", "5s",
                     point});
  doc = nlohmann::json::parse(mount.out);
  EXPECT_EQ(doc["command"], nlohmann::json::array(
                                {"mount", "-t", "ceph", "198.18.0.1:6789:/volumes/v1", point, "-o",
                                 "name=csi-cephfs-node,secretfile=/k,mds_namespace=myfs,"
                                 "ms_mode=crc,_netdev"}))
      << mount.out;
}

TEST_F(ExecCephCli, MapWithoutAKeyIsRefused) {
  auto r = exec({"map", "--netns", link, "--pool", "p", "--image", "i", "--mon", "198.18.0.1:6789",
                 "--id", "admin"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_NE(r.err.find("--keyfile"), std::string::npos) << r.err;
}

TEST_F(ExecCephCli, UmountInsideTheNamespaceReachesTheCaller) {
  std::string point = tmp / "mnt";
  ASSERT_EQ(::mkdir(point.c_str(), 0755), 0);
  ASSERT_EQ(::mount("exec-ceph-test", point.c_str(), "tmpfs", 0, nullptr), 0);
  auto r = exec({"umount", "--netns", link, point});
  EXPECT_TRUE(r.ok()) << r.describe();
  std::string mounts = read_file("/proc/self/mountinfo", 16 << 20);
  bool still = mounts.find(" " + point + " ") != std::string::npos;
  EXPECT_FALSE(still);
  if (still) ::umount2(point.c_str(), MNT_DETACH);
}

TEST_F(ExecCephCli, KernelCephMountWithoutTheModuleIsAClearFailure) {
  std::string point = tmp / "mnt";
  ASSERT_EQ(::mkdir(point.c_str(), 0755), 0);
  auto r = exec({"mount", "--json", "--netns", link, "--mon", "198.18.0.1:6789", "--id", "admin",
                 "--keyfile", "/dev/null", "--timeout", "10s", point});
  EXPECT_NE(r.exit_code, 0) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["operation"], "mount");
  EXPECT_EQ(doc["ok"], false);
  EXPECT_FALSE(doc["message"].get<std::string>().empty());
}

}  // namespace
}  // namespace netns::test::exec
