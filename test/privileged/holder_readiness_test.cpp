// netns-holder --require-interface: nothing is published before the storage
// interface exists, is up and has an address; losing it later fails `check`
// (the readiness probe) with its name, and the files stay.
#include "holder_helpers.hpp"
#include "netns/holder_record.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::exists;
using holder_test::Holder;
using netns::test::ip_in;
using netns::test::TempDir;
using netns::test::unique_name;

// The probe as the chart runs it: inside the holder's namespace.
netns::test::RunResult check(const Holder& h, const std::string& dir, const std::string& id) {
  return netns::test::run_command(
      {"nsenter", "--net=" + h.ns_path(), "--", holder_test::kHolder, "check", "--cluster-id", id,
       "--dir", dir, "--require-interface", "net1"},
      holder_test::within(10s));
}

bool logged(const Holder& h, const std::string& text) {
  return netns::test::wait_until([&] { return h.err().find(text) != std::string::npos; }, 10s);
}

TEST(HolderReadiness, PublishesOnlyOnceTheInterfaceIsThereAndUnreadyOnLoss) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("ready");
  const std::string record = tmp / (id + ".holder.json");
  const std::string link = tmp / (id + ".net.ns");
  Holder h(tmp.path(), id, {"--require-interface", "net1"});

  // Each step that is not yet enough is a log line, and nothing is published.
  ASSERT_TRUE(logged(h, "not publishing yet: net1 does not exist")) << h.err();
  EXPECT_FALSE(exists(record));
  EXPECT_FALSE(exists(link));
  EXPECT_TRUE(exists(tmp / (id + ".lock")));  // the lock is held meanwhile
  ip_in(h.ns_path(), {"link", "add", "net1", "type", "veth", "peer", "name", "net1p"});
  ASSERT_TRUE(logged(h, "not publishing yet: net1 is down")) << h.err();
  ip_in(h.ns_path(), {"link", "set", "net1", "up"});
  ASSERT_TRUE(logged(h, "not publishing yet: net1 has no address")) << h.err();
  EXPECT_FALSE(exists(record));
  EXPECT_FALSE(exists(link));

  ip_in(h.ns_path(), {"addr", "add", "198.18.10.5/24", "dev", "net1"});
  ASSERT_TRUE(h.wait_ready()) << h.err();
  EXPECT_TRUE(exists(link));
  auto r = netns::parse_record(netns::read_file(record), record);
  ASSERT_TRUE(r.client_addresses.has_value());
  EXPECT_EQ(netns::format_client_addresses(*r.client_addresses), "198.18.10.5/24%net1");
  auto ok = check(h, tmp.path(), id);
  EXPECT_EQ(ok.exit_code, 0) << ok.describe();
  EXPECT_NE(ok.out.find("required interfaces ready"), std::string::npos) << ok.out;

  // Lost: the probe fails naming it, the holder says so, the files stay.
  ip_in(h.ns_path(), {"link", "set", "net1", "down"});
  EXPECT_TRUE(logged(h, "storage network lost: net1 is down")) << h.err();
  auto lost = check(h, tmp.path(), id);
  EXPECT_EQ(lost.exit_code, 1) << lost.describe();
  EXPECT_NE(lost.err.find("storage network not ready: net1 is down"), std::string::npos)
      << lost.err;
  EXPECT_TRUE(exists(record));
  EXPECT_TRUE(exists(link));
  ip_in(h.ns_path(), {"link", "del", "net1"});
  auto gone = check(h, tmp.path(), id);
  EXPECT_EQ(gone.exit_code, 1) << gone.describe();
  EXPECT_NE(gone.err.find("net1 does not exist"), std::string::npos) << gone.err;

  // The control: the same probe without --require-interface passes, so the
  // failure above is the interface's, not the files'.
  auto plain =
      netns::test::run_command({"nsenter", "--net=" + h.ns_path(), "--", holder_test::kHolder,
                                "check", "--cluster-id", id, "--dir", tmp.path()},
                               holder_test::within(10s));
  EXPECT_EQ(plain.exit_code, 0) << plain.describe();

  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_FALSE(exists(record)) << h.err();
}

TEST(HolderReadiness, SigtermWhileWaitingExitsZeroHavingPublishedNothing) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("rwait");
  Holder h(tmp.path(), id, {"--require-interface", "net1"});
  ASSERT_TRUE(logged(h, "not publishing yet")) << h.err();
  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_NE(h.err().find("published nothing"), std::string::npos) << h.err();
  EXPECT_FALSE(exists(tmp / (id + ".holder.json")));
}

TEST(HolderReadiness, RejectsAnInvalidInterfaceName) {
  auto r = netns::test::run_command({holder_test::kHolder, "--cluster-id", "x", "--dir",
                                     "/nonexistent", "--require-interface", "a/b"},
                                    holder_test::within(10s));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("--require-interface \"a/b\" is not an interface name"), std::string::npos)
      << r.err;
}

}  // namespace
