// netns-exec guard --holder-record: the guard's lines also reach the holder
// process's own stderr (in a pod: the holder container's log), and only when
// the record names the live holder of the namespace being guarded. A record
// that does not costs the mirror, never the guard.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "holder_helpers.hpp"
#include "netns/holder_record.hpp"

namespace {

using namespace std::chrono_literals;
using holder_test::Holder;
using netns::test::TempDir;
using netns::test::unique_name;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kExec = NETNS_EXEC_BIN;

netns::test::RunResult guard(const std::string& link, const std::string& record) {
  return netns::test::run_command({kExec, "guard", "--wait-idle", "--netns", link, "--max-wait",
                                   "5s", "--holder-record", record},
                                  holder_test::within(20s));
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(GuardHolderLog, TheGuardsLinesReachTheLiveHoldersStderr) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("glog");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  auto r = guard(tmp / (id + ".net.ns"), tmp / (id + ".holder.json"));
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_THAT(h.err(), HasSubstr("netns-exec guard: preStop: checking for storage sessions in " +
                                 tmp / (id + ".net.ns") + " before holder pid " +
                                 std::to_string(h.pid()) + " stops (max wait 5s)"));
  EXPECT_THAT(h.err(), HasSubstr("netns-exec guard: no established storage session in "));
  EXPECT_THAT(r.err, Not(HasSubstr("not writing to the holder's log"))) << r.err;
}

TEST(GuardHolderLog, ARecordWhosePidIsAnotherProcessGetsNoLines) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp, other;
  std::string id = unique_name("greuse");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  // The live holder's pid with another start time: what a record looks like
  // to a reader once its holder died and the pid was reused.
  auto record = netns::parse_record(netns::read_file(tmp / (id + ".holder.json")), "record");
  record.pid_start_time += 1;
  netns::UniqueFd fd = netns::open_fd(other / (id + ".holder.json"), O_WRONLY | O_CREAT, 0644);
  netns::write_all(fd.get(), netns::serialize_record(record), "record copy");

  auto r = guard(tmp / (id + ".net.ns"), other / (id + ".holder.json"));
  EXPECT_EQ(r.exit_code, 0) << "the mirror failing must not fail the guard: " << r.describe();
  EXPECT_THAT(r.err, HasSubstr("not writing to the holder's log")) << r.err;
  EXPECT_THAT(r.err, HasSubstr("reused")) << r.err;
  EXPECT_EQ(count(h.err(), "netns-exec guard:"), 0u) << h.err();
}

TEST(GuardHolderLog, TheRecordOfAnotherNamespacesHolderGetsNoLines) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string a = unique_name("ga"), b = unique_name("gb");
  Holder ha(tmp.path(), a);
  Holder hb(tmp.path(), b);
  ASSERT_TRUE(ha.wait_ready()) << ha.err();
  ASSERT_TRUE(hb.wait_ready()) << hb.err();
  // Guarding A's namespace with B's (live, valid) record: B is not the holder
  // whose namespace is at stake, so its log is not the place for these lines.
  auto r = guard(tmp / (a + ".net.ns"), tmp / (b + ".holder.json"));
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("not writing to the holder's log")) << r.err;
  EXPECT_EQ(count(hb.err(), "netns-exec guard:"), 0u) << hb.err();
  EXPECT_EQ(count(ha.err(), "netns-exec guard:"), 0u) << ha.err();
}

// --announce-replacement: the next preStop guard of that very holder does not
// hold, once; a notice for another holder process is reported and ignored.
netns::test::RunResult announce(const std::string& link, const std::string& record) {
  return netns::test::run_command(
      {kExec, "guard", "--announce-replacement", "1m", "--netns", link, "--holder-record", record},
      holder_test::within(20s));
}

TEST(GuardReplacementNotice, AnAnnouncedReplacementIsLetThroughOnce) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("gann");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  const std::string link = tmp / (id + ".net.ns"), record = tmp / (id + ".holder.json");
  auto a = announce(link, record);
  ASSERT_EQ(a.exit_code, 0) << a.describe();
  EXPECT_TRUE(holder_test::exists(tmp / (id + ".replacing")));
  EXPECT_THAT(h.err(),
              HasSubstr("netns-exec guard: in-place replacement announced for holder pid " +
                        std::to_string(h.pid()) + ": its preStop guard within 1m"));

  auto r = guard(link, record);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_THAT(h.err(), HasSubstr("in-place replacement announced for holder pid " +
                                 std::to_string(h.pid()) + ": not holding; 0 established"));
  EXPECT_FALSE(holder_test::exists(tmp / (id + ".replacing"))) << "a notice is used once";

  r = guard(link, record);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(count(h.err(), ": not holding;"), 1u) << h.err();
  EXPECT_THAT(h.err(), HasSubstr("netns-exec guard: no established storage session"));
}

TEST(GuardReplacementNotice, ANoticeForAnotherHolderProcessIsIgnored) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("gold");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  // What a notice left by the previous holder of this ID looks like.
  auto record = netns::parse_record(netns::read_file(tmp / (id + ".holder.json")), "record");
  std::string notice = "{\"version\": 1, \"pid\": " + std::to_string(record.pid) +
                       ", \"pid_start_time\": " + std::to_string(record.pid_start_time + 1) +
                       ", \"until_unix\": 18446744073709551615}\n";
  netns::UniqueFd fd = netns::open_fd(tmp / (id + ".replacing"), O_WRONLY | O_CREAT, 0644);
  netns::write_all(fd.get(), notice, "notice");

  auto r = guard(tmp / (id + ".net.ns"), tmp / (id + ".holder.json"));
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("ignoring the replacement notice: it was for holder pid")) << r.err;
  EXPECT_THAT(h.err(), HasSubstr("netns-exec guard: no established storage session"));
  EXPECT_THAT(h.err(), Not(HasSubstr("not holding"))) << h.err();
  EXPECT_FALSE(holder_test::exists(tmp / (id + ".replacing"))) << "a stale notice is removed";
}

TEST(GuardReplacementNotice, AnnouncingNeedsTheHoldersRecord) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("gnorec");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  auto r = netns::test::run_command(
      {kExec, "guard", "--announce-replacement", "1m", "--netns", tmp / (id + ".net.ns")},
      holder_test::within(20s));
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("needs --holder-record")) << r.err;
  EXPECT_FALSE(holder_test::exists(tmp / (id + ".replacing")));
}

}  // namespace
