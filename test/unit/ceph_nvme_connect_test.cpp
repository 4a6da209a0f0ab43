// nvme connect as ceph-csi's nvmeof node plugin makes it, and the lookup
// that makes it idempotent: an existing controller of that subsystem at that
// address (a stand-in /sys/class/nvme tree).
#include <sys/stat.h>

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "netns/error.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/ceph/ceph.hpp"

namespace netns::ceph {
namespace {

using ::testing::ElementsAre;

NvmeConnectRequest request() {
  NvmeConnectRequest r;
  r.subsystem_nqn = "nqn.2016-06.io.spdk:cnode1";
  r.traddr = "198.18.4.10";
  r.ctrl_loss_tmo = "1800";
  return r;
}

TEST(NvmeConnectArgv, IsCephCsisCall) {
  EXPECT_THAT(nvme_connect_argv(request()),
              ElementsAre("nvme", "connect", "-t", "tcp", "-n", "nqn.2016-06.io.spdk:cnode1", "-a",
                          "198.18.4.10", "-s", "4420", "-l", "1800"));
  NvmeConnectRequest r = request();
  r.host_nqn = "nqn.2014-08.org.nvmexpress:uuid:1";
  r.dhchap_secret = "DHHC-1:00:abc=:";
  EXPECT_THAT(
      nvme_connect_argv(r),
      ElementsAre("nvme", "connect", "-t", "tcp", "-n", "nqn.2016-06.io.spdk:cnode1", "-a",
                  "198.18.4.10", "-s", "4420", "-l", "1800", "--hostnqn",
                  "nqn.2014-08.org.nvmexpress:uuid:1", "--dhchap-secret", "DHHC-1:00:abc=:"));
  EXPECT_EQ(redact_argv(nvme_connect_argv(r)).back(), "<redacted>")
      << "the secret stays out of logs";
}

TEST(NvmeConnectArgv, ValuesThatWouldAddFabricOptionsAreRefused) {
  for (auto change : std::vector<std::function<void(NvmeConnectRequest&)>>{
           [](auto& r) { r.traddr = "198.18.4.10,nqn=x"; }, [](auto& r) { r.subsystem_nqn = ""; },
           [](auto& r) { r.subsystem_nqn = "-a"; }, [](auto& r) { r.ctrl_loss_tmo = "30m"; },
           [](auto& r) { r.trsvcid = 0; }, [](auto& r) { r.dhchap_secret = "a,b"; },
           [](auto& r) { r.host_nqn = "h n"; }}) {
    NvmeConnectRequest r = request();
    change(r);
    EXPECT_THROW(nvme_connect_argv(r), Error);
  }
  NvmeConnectRequest forever = request();
  forever.ctrl_loss_tmo = "-1";
  EXPECT_NO_THROW(nvme_connect_argv(forever));
}

struct NvmeSysfs : ::testing::Test {
  void controller(const std::string& name, const std::string& nqn, const std::string& address,
                  const std::string& state = "live", const std::string& transport = "tcp") {
    const std::string dir = tmp / name;
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    std::ofstream(dir + "/subsysnqn") << nqn << "\n";
    std::ofstream(dir + "/address") << address << "\n";
    std::ofstream(dir + "/state") << state << "\n";
    std::ofstream(dir + "/transport") << transport << "\n";
    std::ofstream(dir + "/hostnqn") << "nqn.2014-08.org.nvmexpress:uuid:1\n";
  }
  Settings settings() const {
    Settings s;
    s.sys_class_nvme = tmp.path();
    return s;
  }
  test::TempDir tmp;
};

TEST_F(NvmeSysfs, FindsTheControllerOfThatSubsystemAtThatAddress) {
  const NvmeConnectRequest r = request();
  EXPECT_FALSE(connected_controller(settings(), r));
  controller("nvme0", r.subsystem_nqn, "traddr=198.18.4.11,trsvcid=4420,src_addr=198.18.4.1");
  controller("nvme1", "nqn.2016-06.io.spdk:other", "traddr=198.18.4.10,trsvcid=4420");
  controller("nvme2", r.subsystem_nqn, "traddr=198.18.4.10,trsvcid=4421");
  controller("nvme3", r.subsystem_nqn, "traddr=198.18.4.10,trsvcid=4420", "deleting");
  controller("nvme4", r.subsystem_nqn, "traddr=198.18.4.10,trsvcid=4420", "live", "rdma");
  EXPECT_FALSE(connected_controller(settings(), r))
      << "another gateway, subsystem, port, state or transport";
  controller("nvme5", r.subsystem_nqn, "traddr=198.18.4.10,trsvcid=4420,src_addr=198.18.4.1",
             "connecting");
  EXPECT_EQ(connected_controller(settings(), r), "/dev/nvme5")
      << "reconnecting within ctrl_loss_tmo is kept";
  NvmeConnectRequest other_host = r;
  other_host.host_nqn = "nqn.2014-08.org.nvmexpress:uuid:2";
  EXPECT_FALSE(connected_controller(settings(), other_host));
}

TEST_F(NvmeSysfs, AddressesCompareByValue) {
  NvmeConnectRequest r = request();
  r.traddr = "fd00:4::10";
  controller("nvme0", r.subsystem_nqn, "traddr=fd00:4:0:0::10,trsvcid=4420");
  EXPECT_EQ(connected_controller(settings(), r), "/dev/nvme0");
}

}  // namespace
}  // namespace netns::ceph
