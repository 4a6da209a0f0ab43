// Transparent mode: the monitors a Ceph command names, as ceph-csi writes
// its calls, and the one comparison of monitor addresses (v1:/v2:
// prefixes, address vectors, [IPv6], default ports 3300 and 6789).
#include <gtest/gtest.h>

#include "netns_exec/shim/monitors.hpp"

namespace {

using namespace netns::exec::shim;

std::vector<Endpoint> mons(std::string_view list) { return parse_monitors(list); }

TEST(ShimMonitors, ParsesEveryWayAMonitorIsWritten) {
  EXPECT_EQ(mons("198.18.0.1:6789"), (std::vector<Endpoint>{{"198.18.0.1", {6789}}}));
  EXPECT_EQ(mons("198.18.0.1"), (std::vector<Endpoint>{{"198.18.0.1", {3300, 6789}}}));
  EXPECT_EQ(mons("v2:198.18.0.1"), (std::vector<Endpoint>{{"198.18.0.1", {3300}}}));
  EXPECT_EQ(mons("v1:198.18.0.1:6789/0"), (std::vector<Endpoint>{{"198.18.0.1", {6789}}}));
  EXPECT_EQ(mons("[v2:198.18.0.1:3300,v1:198.18.0.1:6789]"),
            (std::vector<Endpoint>{{"198.18.0.1", {3300}}, {"198.18.0.1", {6789}}}));
  EXPECT_EQ(mons("[::1]:6789"), (std::vector<Endpoint>{{"::1", {6789}}}));
  EXPECT_EQ(mons("[0:0::1]"), (std::vector<Endpoint>{{"::1", {3300, 6789}}}));
  EXPECT_EQ(mons("fd00:0::5"), (std::vector<Endpoint>{{"fd00::5", {3300, 6789}}}));
  EXPECT_EQ(mons("Mon-A.Rook-Ceph.svc:6789"),
            (std::vector<Endpoint>{{"mon-a.rook-ceph.svc", {6789}}}));
  // Lists: commas, semicolons, blanks; bad words are dropped.
  EXPECT_EQ(mons("198.18.0.1:6789,198.18.0.2;198.18.0.3:3300 x:0").size(), 3u);
  EXPECT_EQ(parse_monitors("198.18.0.1:6789/198.18.0.2:6789", true).size(), 2u);
  EXPECT_TRUE(mons("").empty());
  EXPECT_TRUE(mons("host:notaport").empty());
  EXPECT_TRUE(mons("[::1").empty());
}

TEST(ShimMonitors, TheSameMonitorHowEverItIsWritten) {
  auto same = [](std::string_view a, std::string_view b) {
    return share_a_monitor(mons(a), mons(b));
  };
  EXPECT_TRUE(same("198.18.0.1", "198.18.0.1:6789"));
  EXPECT_TRUE(same("198.18.0.1", "v2:198.18.0.1:3300"));
  EXPECT_TRUE(same("[v2:198.18.0.1:3300,v1:198.18.0.1:6789]", "198.18.0.1:6789"));
  EXPECT_TRUE(same("v1:[::1]:6789", "::1"));
  EXPECT_TRUE(same("198.18.0.9:6789,198.18.0.1:6789", "198.18.0.1"));
  // Different host, different port, different messenger: not the same.
  EXPECT_FALSE(same("198.18.0.1:6789", "198.18.0.2:6789"));
  EXPECT_FALSE(same("198.18.0.1:6789", "198.18.0.1:6790"));
  EXPECT_FALSE(same("v2:198.18.0.1", "v1:198.18.0.1"));
  EXPECT_FALSE(same("198.18.0.1:3300", "198.18.0.1:6789"));
}

TEST(ShimMonitors, RbdNamesThemWithMOrMonHost) {
  // ceph-csi's map call, and its userspace calls.
  NamedMonitors m = rbd_monitors({"--id", "admin", "-m", "198.18.0.1:6789,198.18.0.2:6789",
                                  "--keyfile=/tmp/k", "map", "rbd/img", "--device-type", "krbd"});
  EXPECT_EQ(m.text, "198.18.0.1:6789,198.18.0.2:6789");
  EXPECT_EQ(m.where, "-m");
  EXPECT_EQ(m.endpoints.size(), 2u);
  EXPECT_EQ(rbd_monitors({"-m198.18.0.1", "ls"}).endpoints.size(), 1u);
  EXPECT_EQ(rbd_monitors({"--mon-host", "198.18.0.1", "ls"}).where, "--mon-host");
  EXPECT_EQ(rbd_monitors({"--mon_host=198.18.0.1", "ls"}).where, "--mon_host");
  EXPECT_EQ(rbd_monitors({"--mon-host=[v2:198.18.0.1:3300]", "ls"}).endpoints,
            (std::vector<Endpoint>{{"198.18.0.1", {3300}}}));
  // None named: `rbd --version`, `rbd help`, `rbd unmap /dev/rbd0`; a -m
  // with nothing after it; a monitor-looking word that is an image name.
  EXPECT_FALSE(rbd_monitors({"--version"}).named());
  EXPECT_FALSE(rbd_monitors({"help", "map"}).named());
  EXPECT_FALSE(rbd_monitors({"unmap", "/dev/rbd0", "--device-type", "krbd"}).named());
  EXPECT_FALSE(rbd_monitors({"ls", "-m"}).named());
  EXPECT_FALSE(rbd_monitors({"info", "198.18.0.1"}).named());
  EXPECT_FALSE(rbd_monitors({"--", "-m", "198.18.0.1"}).named());
}

TEST(ShimMonitors, MountCephNamesThemInTheSourceOrTheOptions) {
  // What mount(8) gives the helper for ceph-csi's `mount -t ceph MONS:/ DIR -o ...`.
  NamedMonitors old = mount_ceph_monitors({"198.18.0.1:6789,198.18.0.2:6789:/volumes/csi", "/mnt/x",
                                           "-o", "name=admin,secretfile=/tmp/s,mds_namespace=fs"});
  EXPECT_EQ(old.text, "198.18.0.1:6789,198.18.0.2:6789");
  EXPECT_EQ(old.where, "the mount source");
  EXPECT_EQ(old.endpoints.size(), 2u);
  EXPECT_EQ(mount_ceph_monitors({"[::1]:6789:/", "/mnt/x"}).endpoints,
            (std::vector<Endpoint>{{"::1", {6789}}}));
  // The device syntax: NAME@FSID.FS=/PATH with mon_addr=M1/M2.
  NamedMonitors dev = mount_ceph_monitors(
      {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "secretfile=/s,mon_addr=198.18.0.1:3300/198.18.0.2"});
  EXPECT_EQ(dev.where, "mon_addr= in -o");
  EXPECT_EQ(dev.endpoints.size(), 2u);
  NamedMonitors host = mount_ceph_monitors(
      {"admin@4a1f.cephfs=/", "/mnt/x", "-omon_host=198.18.0.1,198.18.0.2,name=admin"});
  EXPECT_EQ(host.text, "198.18.0.1,198.18.0.2");
  EXPECT_EQ(host.endpoints.size(), 2u);
  // Both: all of them (a held cluster among them must not be missed).
  EXPECT_EQ(
      mount_ceph_monitors({"198.18.0.1:/", "/m", "-o", "mon_addr=198.18.0.7"}).endpoints.size(),
      2u);
  // None: a source without MONS:, `mount.ceph -h`.
  EXPECT_FALSE(mount_ceph_monitors({"admin@4a1f.cephfs=/", "/mnt/x", "-o", "name=admin"}).named());
  EXPECT_FALSE(mount_ceph_monitors({"-h"}).named());
}

}  // namespace
