// The declaration of the holders that serve non-Ceph targets
// (NETNS_EXEC_TARGETS) and the target address an nvme / mount.nfs command
// names.
#include <gtest/gtest.h>

#include "netns/error.hpp"
#include "netns_exec/shim/targets.hpp"

namespace {

using namespace netns::exec::shim;

TEST(ShimTargets, TheDeclarationIsReadInOrder) {
  auto holders =
      parse_targets(" gw-a = 198.18.4.0/24, 198.18.5.7 ; nfs-a=NFS.Example;;gw6=fd00:4::/64 ");
  ASSERT_EQ(holders.size(), 3u);
  EXPECT_EQ(holders[0].id, "gw-a");
  EXPECT_EQ(holders[0].addresses, (std::vector<std::string>{"198.18.4.0/24", "198.18.5.7"}));
  EXPECT_EQ(holder_serving(holders, "198.18.4.255")->id, "gw-a");
  EXPECT_EQ(holder_serving(holders, "198.18.4.255")->declared, "198.18.4.0/24");
  EXPECT_EQ(holder_serving(holders, "198.18.5.7")->id, "gw-a");
  EXPECT_FALSE(holder_serving(holders, "198.18.5.8"));
  EXPECT_FALSE(holder_serving(holders, "198.18.3.255"));
  EXPECT_EQ(holder_serving(holders, "nfs.example")->id, "nfs-a");
  EXPECT_EQ(holder_serving(holders, canonical_address("[fd00:4:0::9]"))->id, "gw6");
  EXPECT_TRUE(parse_targets("").empty());
}

TEST(ShimTargets, PrefixLengthsThatAreNotByteAligned) {
  EXPECT_TRUE(address_matches("198.18.0.1", "198.18.0.0/15"));
  EXPECT_TRUE(address_matches("198.19.255.254", "198.18.0.0/15"));
  EXPECT_FALSE(address_matches("198.20.0.1", "198.18.0.0/15"));
  EXPECT_TRUE(address_matches("198.19.2.3", "0.0.0.0/0"));
  EXPECT_FALSE(address_matches("fd00::1", "0.0.0.0/0")) << "an IPv6 address is in no IPv4 network";
}

TEST(ShimTargets, BadDeclarationsAreRefusedNamingTheEntry) {
  for (const char* bad : {"gw-a", "gw-a=", "../x=198.18.4.1", "gw-a=198.18.4.0/33",
                          "gw-a=fd00::/129", "gw-a=198.18.4.0/x"}) {
    try {
      parse_targets(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const netns::Error& e) {
      EXPECT_NE(std::string(e.what()).find("NETNS_EXEC_TARGETS"), std::string::npos) << e.what();
    }
  }
}

TEST(ShimTargets, TheAddressAnNvmeCommandNames) {
  EXPECT_EQ(
      nvme_target({"connect", "-t", "tcp", "-n", "nqn.x", "-a", "198.18.4.1", "-s", "4420"})->host,
      "198.18.4.1");
  EXPECT_EQ(nvme_target({"connect", "--traddr=198.18.4.2"})->where, "--traddr");
  EXPECT_EQ(nvme_target({"connect", "--traddr", "198.18.4.3"})->host, "198.18.4.3");
  EXPECT_EQ(nvme_target({"connect", "--trad=198.18.4.4"})->host, "198.18.4.4")
      << "getopt_long takes a prefix";
  EXPECT_EQ(nvme_target({"discover", "-a198.18.4.5"})->host, "198.18.4.5");
  EXPECT_EQ(nvme_target({"connect-all", "-a", "FD00::0:1"})->host, "fd00::1");
  EXPECT_EQ(nvme_target({"connect", "-a", "198.18.4.1", "-a", "198.18.4.9"})->host, "198.18.4.9")
      << "the last wins";
  EXPECT_FALSE(nvme_target({"connect", "--", "-a", "198.18.4.1"}));
  EXPECT_FALSE(nvme_target({"connect", "--transport", "tcp"}));
  EXPECT_FALSE(nvme_target({"disconnect", "-d", "/dev/nvme0"}));
  EXPECT_FALSE(nvme_target({"list-subsys", "-o", "json"}));
  EXPECT_FALSE(nvme_target({}));
  EXPECT_TRUE(nvme_connects({"connect-all"}));
  EXPECT_FALSE(nvme_connects({"connect", "--help"}));
  EXPECT_FALSE(nvme_connects({"disconnect-all"}));
}

TEST(ShimTargets, TheServerAnNfsMountNames) {
  EXPECT_EQ(nfs_server({"198.18.6.2:/export", "/mnt", "-o", "vers=4.1"})->host, "198.18.6.2");
  EXPECT_EQ(nfs_server({"-o", "ro", "NFS.example:/", "/mnt"})->host, "nfs.example");
  auto v6 = nfs_server({"[fd00:6::2]:/export/a", "/mnt"});
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "fd00:6::2");
  EXPECT_EQ(v6->text, "[fd00:6::2]");
  EXPECT_FALSE(nfs_server({"-V"}));
  EXPECT_FALSE(nfs_server({"/dev/sda1", "/mnt"})) << "no SERVER:/ source";
}

}  // namespace
