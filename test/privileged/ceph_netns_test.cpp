// Ceph operations with this machine's real tools, inside a throw-away network
// namespace: rbd map and kernel mounts must fail fast and say why when the
// module is missing, and identical requests are recognised by the
// namespace's identity, not by descriptor number.
//
// The fails-fast tests are hermetic: the kernel probes (/sys/bus/rbd,
// /proc/filesystems) and modprobe are stand-ins for a node without the
// modules, so they run (and do not skip) on a node that has them. The
// positive path, with the real rbd and ceph modules, is test/kernel's.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "netns/fd.hpp"
#include "netns/test/support.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/ceph/ceph.hpp"

namespace netns::ceph {
namespace {

using namespace std::chrono_literals;
using test::NetnsChild;
using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

// A node without the rbd and ceph modules: no /sys/bus/rbd, no ceph in
// /proc/filesystems, and a modprobe that cannot load them.
Settings node_without_modules(const TempDir& dir) {
  Settings settings;
  settings.sys_bus_rbd = dir / "no-sys-bus-rbd";
  settings.proc_filesystems = dir / "filesystems";
  std::ofstream(settings.proc_filesystems) << "nodev\tsysfs\nnodev\ttmpfs\n\text4\n";
  settings.modprobe = dir / "modprobe";
  std::ofstream(settings.modprobe) << "#!/bin/sh\necho \"modprobe: FATAL: Module $1 not found in "
                                      "directory /lib/modules/$(uname -r)\" >&2\nexit 1\n";
  ::chmod(settings.modprobe.c_str(), 0755);
  settings.lock_dir = dir / "locks";
  return settings;
}

TEST(CephNetns, RbdMapFailsFastWithoutTheRbdModule) {
  NETNS_REQUIRE_ROOT();
  NetnsChild ns;
  UniqueFd fd = open_fd(ns.ns_path(), O_RDONLY);
  TempDir dir;
  std::string keyfile = dir / "key";
  std::ofstream(keyfile) << "AQBzb21lc2VjcmV0a2V5dmFsdWUxMjM0NTY3OA==\n";

  MapRequest request;
  request.pool = "rbd";
  request.image = "img";
  // Unreachable from the empty namespace: without the probe, rbd would wait
  // for the monitor until the timeout.
  request.monitors = {"198.18.0.1:6789"};
  request.credentials.id = "admin";
  request.credentials.keyfile = keyfile;
  Settings settings = node_without_modules(dir);
  settings.timeout = 60s;
  Runner runner(settings);
  auto start = std::chrono::steady_clock::now();
  OperationResult r = runner.map(request, Target{.netns_fd = fd.get(), .initial_netns = false});
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, test::scaled(10s));
  EXPECT_EQ(r.failure, Failure::kernel_module_missing) << r.message;
  EXPECT_THAT(r.message, HasSubstr("the rbd kernel module is not available on this node"));
  EXPECT_THAT(r.message, HasSubstr("modprobe"));
  EXPECT_EQ(r.exit_code(), 125);
  EXPECT_TRUE(r.device.empty());
  EXPECT_THAT(r.message, Not(HasSubstr("AQBzb21lc2VjcmV0")));
}

TEST(CephNetns, KernelCephfsMountFailsFastWithoutTheModule) {
  NETNS_REQUIRE_ROOT();
  NetnsChild ns;
  UniqueFd fd = open_fd(ns.ns_path(), O_RDONLY);
  TempDir dir;
  CephfsMountRequest request;
  request.monitors = {"198.18.0.1:6789"};
  request.target = dir.path();
  request.credentials.id = "admin";
  request.credentials.key = "AQBzb21lc2VjcmV0a2V5dmFsdWUxMjM0NTY3OA==";
  Runner runner(node_without_modules(dir));
  OperationResult r =
      runner.mount_cephfs(request, Target{.netns_fd = fd.get(), .initial_netns = false});
  EXPECT_EQ(r.failure, Failure::kernel_module_missing) << r.message;
  EXPECT_THAT(r.message, HasSubstr("ceph kernel module is not available"));
  EXPECT_THAT(r.message, Not(HasSubstr("AQBzb21lc2VjcmV0")));
}

spawn::Command append_namespace(const std::string& log) {
  spawn::Command c;
  c.argv = {"/bin/sh", "-c", "readlink /proc/self/ns/net >> " + log};
  return c;
}

// Requests for one volume from one Runner: each runs, in the namespace its
// own target names (two descriptors of one namespace are that namespace).
TEST(CephNetns, EachRequestRunsInItsTargetsNamespace) {
  NETNS_REQUIRE_ROOT();
  NetnsChild a;
  NetnsChild b;
  UniqueFd a1 = open_fd(a.ns_path(), O_RDONLY);
  UniqueFd a2 = open_fd(a.ns_path(), O_RDONLY);  // same namespace, another fd
  UniqueFd b1 = open_fd(b.ns_path(), O_RDONLY);
  TempDir dir;
  std::string log = dir / "log";
  Settings settings;
  settings.lock_dir = dir / "locks";
  Runner runner(settings);
  for (int fd : {a1.get(), a2.get(), b1.get()}) {
    OperationResult r =
        runner.run_serialized("map", "rbd/v", append_namespace(log), Target{.netns_fd = fd});
    EXPECT_TRUE(r.ok()) << r.message;
  }
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::string na = "net:[" + std::to_string(a.ns_id().ino) + "]";
  const std::string nb = "net:[" + std::to_string(b.ns_id().ino) + "]";
  EXPECT_THAT(lines, ::testing::ElementsAre(na, na, nb));
}

}  // namespace
}  // namespace netns::ceph
