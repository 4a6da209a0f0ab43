// doctor's checks against a reachable monitor listener, then with the route
// and then the listener taken away: exactly the right line turns FAIL.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "inspect_fixture.hpp"
#include "netns/holder_record.hpp"
#include "netns/proc.hpp"
#include "netns_exec/doctor.hpp"

namespace netns::test {
namespace {

using inspect::Check;
using inspect::CheckStatus;
using inspect::Endpoint;

std::vector<std::string> failed(const std::vector<Check>& checks) {
  std::vector<std::string> names;
  for (const auto& c : checks)
    if (c.status == CheckStatus::fail) names.push_back(c.name);
  return names;
}

const Check& named(const std::vector<Check>& checks, const std::string& name) {
  auto it = std::find_if(checks.begin(), checks.end(), [&](const Check& c) { return c.name == name; });
  if (it == checks.end()) throw std::runtime_error("no check named " + name);
  return *it;
}

struct DoctorTest : testing::Test {
  void SetUp() override { NETNS_REQUIRE_ROOT(); }
  std::vector<Endpoint> mons{Endpoint::parse(std::string(kMonAddr) + ":6789", "--mon")};
};

TEST_F(DoctorTest, PassesAgainstAReachableMonitor) {
  StorageNet net;
  UniqueFd listener = net.listen_mon(6789);
  auto file = inspect::check_namespace_file(net.inspected.ns_path());
  EXPECT_THAT(failed(file.checks), testing::IsEmpty()) << inspect::render_checks(file.checks);
  ASSERT_TRUE(file.fd);
  auto inside = inspect::check_inside(file.fd.get(), net.inspected.ns_path(), mons, 2000ms);
  EXPECT_THAT(failed(inside), testing::IsEmpty()) << inspect::render_checks(inside);
  EXPECT_EQ(named(inside, "connect to 198.19.5.10:6789").status, CheckStatus::pass);
  EXPECT_THAT(named(inside, "route to 198.19.5.10:6789").detail,
              testing::HasSubstr("via 198.18.1.2 dev " + net.va));
}

TEST_F(DoctorTest, FailsOnTheRouteLineWhenTheRouteIsRemoved) {
  StorageNet net;
  UniqueFd listener = net.listen_mon(6789);
  net.del_route();
  UniqueFd fd = net.inspected_fd();
  auto inside = inspect::check_inside(fd.get(), net.inspected.ns_path(), mons, 2000ms);
  EXPECT_THAT(failed(inside), testing::ElementsAre("route to 198.19.5.10:6789"))
      << inspect::render_checks(inside);
  EXPECT_EQ(named(inside, "connect to 198.19.5.10:6789").status, CheckStatus::skip);
  EXPECT_THAT(inspect::render_checks(inside), testing::HasSubstr("FAIL  route to 198.19.5.10:6789"));
}

TEST_F(DoctorTest, FailsOnTheConnectLineWhenNothingListens) {
  StorageNet net;
  UniqueFd fd = net.inspected_fd();
  auto start = std::chrono::steady_clock::now();
  auto inside = inspect::check_inside(fd.get(), net.inspected.ns_path(), mons, 2000ms);
  EXPECT_LT(std::chrono::steady_clock::now() - start, test::scaled(2s));
  EXPECT_THAT(failed(inside), testing::ElementsAre("connect to 198.19.5.10:6789"))
      << inspect::render_checks(inside);
  EXPECT_THAT(named(inside, "connect to 198.19.5.10:6789").detail, testing::HasSubstr("refused"));
}

TEST_F(DoctorTest, ReportsATimeoutWithinTheDeadline) {
  StorageNet net;
  // The peer namespace silently drops the monitor's traffic.
  must(net.ceph.run({"ip", "route", "add", "blackhole", "198.18.1.0/25"}), "blackhole");
  must(net.ceph.run({"ip", "route", "add", "blackhole", "198.18.1.1/32"}), "blackhole host");
  UniqueFd fd = net.inspected_fd();
  auto start = std::chrono::steady_clock::now();
  auto inside = inspect::check_inside(fd.get(), net.inspected.ns_path(), mons, 500ms);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 450ms);
  EXPECT_LT(took, test::scaled(2s));
  EXPECT_THAT(named(inside, "connect to 198.19.5.10:6789").detail, testing::HasSubstr("timed out"));
}

TEST_F(DoctorTest, FileChecksFailOnAMissingFileAndOnOurOwnNamespace) {
  auto missing = inspect::check_namespace_file("/nonexistent/" + unique_name("x") + ".net.ns");
  ASSERT_EQ(missing.checks.size(), 1u);
  EXPECT_EQ(missing.checks[0].name, "file exists");
  EXPECT_EQ(missing.checks[0].status, CheckStatus::fail);
  EXPECT_FALSE(missing.fd);

  auto own = inspect::check_namespace_file("/proc/thread-self/ns/net");
  EXPECT_THAT(failed(own.checks), testing::ElementsAre("not our own namespace"));
}

TEST_F(DoctorTest, ChecksTheHolderRecordNextToTheLink) {
  NetnsChild child;
  TempDir dir;
  std::string id = unique_name("c");
  ASSERT_EQ(::symlink(child.ns_path().c_str(), (dir / (id + ".net.ns")).c_str()), 0);
  HolderRecord rec;
  rec.cluster_id = id;
  rec.pid = child.pid();
  rec.pid_start_time = *pid_start_time(child.pid());
  rec.netns = child.ns_id();
  rec.pidns_ino = current_pidns_id().ino;
  rec.boot_id = read_boot_id();
  rec.created_unix = 1;
  {
    UniqueFd f = open_fd(dir / (id + ".holder.json"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    write_all(f.get(), serialize_record(rec), "record");
  }
  auto ok = inspect::check_namespace_file(dir / (id + ".net.ns"));
  EXPECT_THAT(failed(ok.checks), testing::IsEmpty()) << inspect::render_checks(ok.checks);
  EXPECT_EQ(named(ok.checks, "holder alive").status, CheckStatus::pass);
  EXPECT_EQ(named(ok.checks, "identity matches").status, CheckStatus::pass);

  rec.netns.ino += 1;  // a record describing another namespace
  {
    UniqueFd f = open_fd(dir / (id + ".holder.json"), O_WRONLY | O_TRUNC);
    write_all(f.get(), serialize_record(rec), "record");
  }
  auto bad = inspect::check_namespace_file(dir / (id + ".net.ns"));
  EXPECT_THAT(failed(bad.checks), testing::ElementsAre("identity matches"));
}

}  // namespace
}  // namespace netns::test
