// Reading the kernel's view of its Ceph clients (a stand-in tree with the
// files and formats drivers/block/rbd.c, fs/ceph/debugfs.c and
// net/ceph/debugfs.c write, since krbd cannot be loaded on every test
// machine) and judging each mapping against the namespaces that serve it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "netns/test/support.hpp"
#include "netns_exec/inspect/kernel_clients.hpp"

namespace {

using netns::inspect::judge_mappings;
using netns::inspect::KernelRoots;
using netns::inspect::MappingVerdict;
using netns::inspect::read_kernel_clients;
using netns::inspect::ServingNamespace;
using netns::test::TempDir;

void put(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

struct Tree {
  TempDir tmp;
  KernelRoots roots{tmp / "bus/rbd", tmp / "debug/ceph", tmp / "mountinfo"};

  void rbd(const std::string& n, const std::string& pool, const std::string& ns,
           const std::string& image, const std::string& snap, const std::string& addr) {
    std::string d = roots.sys_bus_rbd + "/devices/" + n + "/";
    put(d + "pool", pool + "\n");
    put(d + "pool_ns", ns + "\n");
    put(d + "name", image + "\n");
    put(d + "current_snap", snap + "\n");
    put(d + "client_id", "client4181\n");
    put(d + "client_addr", addr + "\n");
  }
  void fs_client(const std::string& dir, const std::string& instance, const std::string& mon) {
    put(roots.ceph_debugfs + "/" + dir + "/status",
        "instance: " + instance + "\nblocklisted: false\n");
    put(roots.ceph_debugfs + "/" + dir + "/monmap", "epoch 3\n\tmon0\t" + mon + "\n");
  }
};

const MappingVerdict* find(const std::vector<MappingVerdict>& v, const std::string& object) {
  for (const auto& m : v)
    if (m.object == object) return &m;
  return nullptr;
}

const std::string kFsid = "4f1c3a7e-5b2d-4a8e-9c61-0d2e7f3b9a10";

TEST(KernelClients, EntityAddressesAsTheKernelPrintsThem) {
  EXPECT_EQ(netns::inspect::entity_addr_ip("198.18.0.5:0/3127"), "198.18.0.5");
  EXPECT_EQ(netns::inspect::entity_addr_ip("[2001:DB8::0:5]:0/9"), "2001:db8::5");
  EXPECT_EQ(netns::inspect::entity_addr_ip("(unrecognized address family 0)"), "");
  EXPECT_EQ(netns::inspect::entity_addr_ip(""), "");
}

TEST(KernelClients, FlagsExactlyTheMappingsNoServingNamespaceHas) {
  Tree t;
  t.rbd("0", "rbd", "", "served", "-", "198.18.31.50:0/1234");
  t.rbd("1", "rbd", "ns1", "stranded", "snap1", "198.18.31.77:0/999");
  t.rbd("2", "rbd", "", "v6", "-", "[2001:db8::31]:0/7");
  // The CephFS client of the stranded namespace; an rbd client (no status)
  // is ignored for mounts.
  t.fs_client(kFsid + ".client4300", "client.4300 198.18.31.77:0/555", "198.18.31.1:6789");
  put(t.roots.ceph_debugfs + "/" + kFsid + ".client4181/monmap",
      "epoch 3\n\tmon0\t198.18.31.1:6789\n");
  put(t.roots.mountinfo,
      "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
      "100 50 0:77 /volumes/csi /var/lib/kubelet/pods/p\\0401/mount rw,relatime shared:1 - ceph "
      "198.18.31.1:6789:/volumes/csi rw,name=admin,secret=<hidden>,acl\n");

  auto clients = read_kernel_clients(t.roots);
  ASSERT_EQ(clients.rbd.size(), 3u);
  EXPECT_EQ(clients.rbd[1].image, "rbd/ns1/stranded@snap1");
  EXPECT_EQ(clients.rbd[1].device, "/dev/rbd1");
  ASSERT_EQ(clients.cephfs_clients.size(), 1u);
  EXPECT_EQ(clients.cephfs_clients[0].monitor_ips, std::vector<std::string>{"198.18.31.1"});
  ASSERT_EQ(clients.mounts.size(), 1u);
  EXPECT_EQ(clients.mounts[0].mount_point, "/var/lib/kubelet/pods/p 1/mount");

  std::vector<ServingNamespace> serving = {
      {"holder \"ceph-a\"",
       {{"net1", "198.18.31.50", 24, false}, {"net1", "2001:db8::31", 64, true}}},
      {"the node's namespace", {{"eth0", "198.18.32.1", 24, false}}}};
  auto v = judge_mappings(clients, serving);
  ASSERT_EQ(v.size(), 4u);
  const auto* served = find(v, "/dev/rbd0");
  ASSERT_NE(served, nullptr);
  EXPECT_FALSE(served->orphaned);
  EXPECT_EQ(served->served_by, "holder \"ceph-a\"");
  EXPECT_FALSE(find(v, "/dev/rbd2")->orphaned);  // IPv6, compared canonically
  const auto* stranded = find(v, "/dev/rbd1");
  EXPECT_TRUE(stranded->orphaned);
  EXPECT_EQ(stranded->address, "198.18.31.77");
  EXPECT_EQ(stranded->image, "rbd/ns1/stranded@snap1");
  EXPECT_NE(stranded->meaning.find(
                "no live holder (and not the node) has its client address: its namespace is gone"),
            std::string::npos);
  const auto* mount = find(v, "/var/lib/kubelet/pods/p 1/mount");
  ASSERT_NE(mount, nullptr);
  EXPECT_TRUE(mount->orphaned) << mount->meaning;
  EXPECT_EQ(mount->address, "198.18.31.77");
  EXPECT_EQ(mount->image, "198.18.31.1:6789:/volumes/csi");

  // The control: once the stranded client's address is served again, nothing is flagged.
  serving[1].addresses.push_back({"eth1", "198.18.31.77", 24, false});
  for (const auto& m : judge_mappings(clients, serving)) EXPECT_FALSE(m.orphaned) << m.object;
}

TEST(KernelClients, NewMountSyntaxIsTiedByFsidAndAnAmbiguousClusterIsNotFlagged) {
  Tree t;
  t.fs_client(kFsid + ".client1", "client.1 198.18.31.77:0/1", "198.18.31.1:3300");
  put(t.roots.mountinfo, "100 50 0:77 / /mnt/a rw - ceph admin@" + kFsid +
                             ".cephfs=/ rw,name=admin,mon_addr=198.18.31.1:3300\n");
  auto clients = read_kernel_clients(t.roots);
  ASSERT_EQ(clients.mounts.size(), 1u);
  auto v = judge_mappings(clients, {});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].orphaned);

  // A second client of the same cluster that is served: the kernel does not
  // say which one the mount uses, so it is "cannot tell", not a false alarm.
  t.fs_client(kFsid + ".client2", "client.2 198.18.31.50:0/2", "198.18.31.1:3300");
  auto again = judge_mappings(read_kernel_clients(t.roots),
                              {{"holder", {{"net1", "198.18.31.50", 24, false}}}});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_FALSE(again[0].orphaned);
  EXPECT_FALSE(again[0].served_by.has_value());
  EXPECT_NE(again[0].meaning.find("cannot tell"), std::string::npos) << again[0].meaning;
}

TEST(KernelClients, AnAbsentTreeIsNoMappingAndANote) {
  TempDir tmp;
  auto clients = read_kernel_clients({tmp / "none/rbd", tmp / "none/ceph", tmp / "none/mountinfo"});
  EXPECT_TRUE(clients.rbd.empty());
  EXPECT_TRUE(clients.mounts.empty());
  ASSERT_EQ(clients.notes.size(), 3u);
  EXPECT_NE(clients.notes[0].find("no rbd module loaded"), std::string::npos) << clients.notes[0];
}

}  // namespace
