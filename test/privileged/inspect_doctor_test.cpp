// doctor's checks against a reachable monitor listener, then with the route
// and then the listener taken away: exactly the right line turns FAIL.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "inspect_fixture.hpp"
#include "netns/holder_record.hpp"
#include "netns/proc.hpp"
#include "netns_exec/inspect/doctor.hpp"
#include "netns_exec/source.hpp"

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
  auto it =
      std::find_if(checks.begin(), checks.end(), [&](const Check& c) { return c.name == name; });
  if (it == checks.end()) throw std::runtime_error("no check named " + name);
  return *it;
}

// doctor's file-level lines: the executor's own checks, as doctor runs them.
std::vector<Check> file_checks(const std::string& path) {
  return inspect::checks_from(exec::inspect_source(exec::Source::netns_path(path)).findings);
}

struct DoctorTest : testing::Test {
  void SetUp() override { NETNS_REQUIRE_ROOT(); }
  std::vector<Endpoint> mons{Endpoint::parse(std::string(kMonAddr) + ":6789", "--mon")};
};

TEST_F(DoctorTest, PassesAgainstAReachableMonitor) {
  StorageNet net;
  UniqueFd listener = net.listen_mon(6789);
  exec::ResolveOptions unrecorded;
  unrecorded.allow_unrecorded_netns = true;  // a plain /proc/PID/ns/net: no holder here
  auto file = exec::inspect_source(exec::Source::netns_path(net.inspected.ns_path()), unrecorded);
  auto lines = inspect::checks_from(file.findings);
  EXPECT_THAT(failed(lines), testing::IsEmpty()) << inspect::render_checks(lines);
  ASSERT_TRUE(file.ns.fd);
  auto inside = inspect::check_inside(file.ns.fd.get(), net.inspected.ns_path(), mons, 2000ms);
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
  EXPECT_THAT(inspect::render_checks(inside),
              testing::HasSubstr("FAIL  route to 198.19.5.10:6789"));
}

TEST_F(DoctorTest, FailsOnTheConnectLineWhenNothingListens) {
  StorageNet net;
  UniqueFd fd = net.inspected_fd();
  auto start = std::chrono::steady_clock::now();
  // A refusal is answered at once; waiting for the (long) connect deadline
  // would fail the limit.
  auto inside = inspect::check_inside(fd.get(), net.inspected.ns_path(), mons, 120000ms);
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
  auto missing = exec::inspect_source(
      exec::Source::netns_path("/nonexistent/" + unique_name("x") + ".net.ns"));
  auto lines = inspect::checks_from(missing.findings);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].name, "file exists");
  EXPECT_EQ(lines[0].status, CheckStatus::fail);
  EXPECT_FALSE(missing.ns.fd);
  ASSERT_TRUE(missing.error.has_value());

  // Every failed check is a line: our own namespace, and no record or
  // opt-in for a file outside any holder directory.
  auto own = file_checks("/proc/thread-self/ns/net");
  EXPECT_THAT(failed(own),
              testing::ElementsAre("not our own namespace", "unrecorded file opted in"));
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
  auto ok = file_checks(dir / (id + ".net.ns"));
  EXPECT_THAT(failed(ok), testing::IsEmpty()) << inspect::render_checks(ok);
  EXPECT_EQ(named(ok, "holder alive").status, CheckStatus::pass);
  EXPECT_EQ(named(ok, "identity matches").status, CheckStatus::pass);
  EXPECT_EQ(named(ok, "directory trusted").status, CheckStatus::pass);
  EXPECT_EQ(named(ok, "link owner").status, CheckStatus::pass);

  rec.netns.ino += 1;  // a record describing another namespace
  {
    UniqueFd f = open_fd(dir / (id + ".holder.json"), O_WRONLY | O_TRUNC);
    write_all(f.get(), serialize_record(rec), "record");
  }
  auto bad = file_checks(dir / (id + ".net.ns"));
  EXPECT_THAT(failed(bad), testing::ElementsAre("identity matches"));

  // Every check is printed, not only the first failure: a world-writable
  // holder directory and a link owned by another uid fail on their own lines.
  ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
  ASSERT_EQ(::lchown((dir / (id + ".net.ns")).c_str(), 65534, 65534), 0);
  auto planted = file_checks(dir / (id + ".net.ns"));
  EXPECT_THAT(failed(planted),
              testing::ElementsAre("directory trusted", "link owner", "identity matches"))
      << inspect::render_checks(planted);
}

}  // namespace
}  // namespace netns::test
