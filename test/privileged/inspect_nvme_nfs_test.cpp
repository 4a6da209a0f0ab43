// inspect and the delete guard see the NVMe/TCP and NFS sessions of a
// holder's namespace as they see Ceph's: real TCP sessions from the
// inspected namespace to listeners on 4420 (I/O controller), 8009
// (discovery controller) and 2049 (NFS) in a storage namespace
// (198.18.0.0/15 only), labelled by role, counted by the guard.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inspect_fixture.hpp"
#include "netns_exec/inspect/guard.hpp"
#include "netns_exec/inspect/inspect_report.hpp"

namespace netns::test {
namespace {

TEST(InspectNvmeNfs, SessionsAreLabelledAndCounted) {
  NETNS_REQUIRE_ROOT();
  StorageNet net;
  UniqueFd fd = net.inspected_fd();
  UniqueFd io = net.listen_mon(4420), discovery = net.listen_mon(8009), nfs = net.listen_mon(2049);
  UniqueFd other = net.listen_mon(4421);
  EXPECT_EQ(inspect::count_sessions(fd.get(), "inspected", {}), 0u)
      << "listeners elsewhere are no sessions";

  UniqueFd a = net.connect_mon(4420), b = net.connect_mon(4420), c = net.connect_mon(8009),
           d = net.connect_mon(2049), e = net.connect_mon(4421);
  inspect::Identity id{net.inspected.ns_path(), "", net.inspected.ns_id(), std::nullopt};
  auto report = inspect::collect_report(fd.get(), net.inspected.ns_path(), id);
  std::map<std::string, std::pair<std::string, size_t>> seen;  // peer -> role, established
  for (const auto& g : report.sessions)
    seen[g.peer.str()] = {inspect::role_name(g.role), g.established};
  const std::string mon(kMonAddr);
  EXPECT_EQ(seen[mon + ":4420"], std::make_pair(std::string("nvme/tcp"), size_t{2}));
  EXPECT_EQ(seen[mon + ":8009"], std::make_pair(std::string("nvme-discovery"), size_t{1}));
  EXPECT_EQ(seen[mon + ":2049"], std::make_pair(std::string("nfs"), size_t{1}));
  EXPECT_EQ(seen.count(mon + ":4421"), 0u) << "4421 is no storage port by default";
  EXPECT_EQ(report.sessions.size(), 3u) << inspect::render_table(report, true);

  auto json = inspect::render_json(report);
  EXPECT_EQ(json["ceph_ports"]["nvme"], "4420");
  EXPECT_EQ(json["ceph_ports"]["nfs"], "2049");
  std::string table = inspect::render_table(report);
  EXPECT_THAT(table, testing::HasSubstr("nvme/tcp"));
  EXPECT_THAT(table, testing::HasSubstr(mon + ":2049"));

  // The guard: the four established sessions hold a holder's deletion.
  EXPECT_EQ(inspect::count_sessions(fd.get(), "inspected", {}), 4u);
  inspect::CephPorts ceph_only;
  ceph_only.nvme.clear();
  ceph_only.nvme_discovery.clear();
  ceph_only.nfs.clear();
  EXPECT_EQ(inspect::count_sessions(fd.get(), "inspected", ceph_only), 0u)
      << "the control: without the NVMe/NFS ports nothing counts";
  a.reset();
  b.reset();
  c.reset();
  EXPECT_EQ(inspect::count_sessions(fd.get(), "inspected", {}), 1u)
      << "closed sessions stop counting";
}

TEST(InspectNvmeNfs, TheCliTakesThePortsAndTheGuardCounts) {
  NETNS_REQUIRE_ROOT();
  StorageNet net;
  UniqueFd listener = net.listen_mon(4430);
  UniqueFd nfs_listener = net.listen_mon(2049);
  UniqueFd a = net.connect_mon(4430), b = net.connect_mon(2049);
  // A test namespace, not a holder's: no record vouches for it.
  const std::string source = "--netns=" + net.inspected.ns_path();
  const std::string opt_in = "--allow-unrecorded-netns";
  auto without = run_command({NETNS_EXEC_BIN, "guard", "--count", source, opt_in});
  ASSERT_TRUE(without.ok()) << without.describe();
  EXPECT_EQ(without.out, "1\n") << "4430 counts only when named";
  auto with =
      run_command({NETNS_EXEC_BIN, "guard", "--count", source, opt_in, "--nvme-ports", "4430"});
  ASSERT_TRUE(with.ok()) << with.describe();
  EXPECT_EQ(with.out, "2\n");
  auto inspect =
      run_command({NETNS_EXEC_BIN, "inspect", source, opt_in, "--json", "--nvme-ports", "4430"});
  ASSERT_TRUE(inspect.ok()) << inspect.describe();
  EXPECT_THAT(inspect.out, testing::HasSubstr("\"nvme/tcp\""));
  auto bad =
      run_command({NETNS_EXEC_BIN, "guard", "--count", source, opt_in, "--nfs-ports", "2049-20"});
  EXPECT_EQ(bad.exit_code, 125) << bad.describe();
  EXPECT_THAT(bad.err, testing::HasSubstr("--nfs-ports"));
}

}  // namespace
}  // namespace netns::test
