// `netns-holder check`, the holder pod's exec probe.
#include <fcntl.h>
#include <unistd.h>

#include "holder_helpers.hpp"
#include "netns/atomic_file.hpp"
#include "netns/nsfd.hpp"
#include "netns/trust.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::Holder;
using holder_test::Mode;
using netns::test::NetnsChild;
using netns::test::TempDir;
using netns::test::unique_name;

netns::test::RunResult check_in(const std::string& ns_path, const std::string& dir,
                                const std::string& id) {
  return netns::test::run_command({"nsenter", "--net=" + ns_path, "--", holder_test::kHolder,
                                   "check", "--cluster-id", id, "--dir", dir},
                                  holder_test::within(15s));
}

TEST(HolderCheck, PassesInsideALiveHoldersNamespaceAndFailsOutside) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("chk");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();

  auto ok = check_in(h.ns_path(), tmp.path(), id);
  EXPECT_EQ(ok.exit_code, 0) << ok.describe();
  EXPECT_NE(ok.out.find("ok:"), std::string::npos) << ok.out;

  NetnsChild elsewhere;
  auto bad = check_in(elsewhere.ns_path(), tmp.path(), id);
  EXPECT_EQ(bad.exit_code, 1) << bad.describe();
  EXPECT_EQ(holder_test::line_count(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find("this check runs in net:[" + std::to_string(elsewhere.ns_id().ino) +
                         "]: outside the holder's namespace"),
            std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("kubectl exec <holder pod> -c holder -- netns-holder check"),
            std::string::npos)
      << bad.err;

  // By hand on the node: the node's namespace is named as such, and the
  // question about another holder is not asked there.
  auto node = netns::test::run_command(
      {holder_test::kHolder, "check", "--cluster-id", id, "--dir", tmp.path()},
      holder_test::within(15s));
  EXPECT_EQ(node.exit_code, 1) << node.describe();
  EXPECT_NE(node.err.find("outside the holder's namespace"), std::string::npos) << node.err;
  if (netns::trust::is_host_netns(netns::current_netns_id(), netns::current_netns_id()) ==
      netns::trust::HostNetns::yes) {
    EXPECT_NE(node.err.find("in the node's own net:["), std::string::npos) << node.err;
    EXPECT_EQ(node.err.find("took over"), std::string::npos) << node.err;
  }
}

TEST(HolderCheck, FailsWithAReasonAfterTheNamespaceIsReplaced) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("repl");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  ASSERT_EQ(check_in(h.ns_path(), tmp.path(), id).exit_code, 0);

  // The link now names another namespace than the holder's.
  NetnsChild other;
  auto dir = netns::open_fd(tmp.path(), O_RDONLY | O_DIRECTORY);
  netns::symlink_atomic(dir.get(), id + ".net.ns", other.ns_path(), tmp.path());
  auto r = check_in(h.ns_path(), tmp.path(), id);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(holder_test::line_count(r.err), 1u) << r.err;
  EXPECT_NE(
      r.err.find(id + ".net.ns\" resolves to net:[" + std::to_string(other.ns_id().ino) + "]"),
      std::string::npos)
      << r.err;
}

TEST(HolderCheck, FailsWhenTheHolderIsDeadButItsNamespaceLivesOn) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("dead");
  NetnsChild ns;  // keeps the namespace alive after the holder dies
  {
    Holder h(tmp.path(), id, {}, Mode::join, ns.ns_path());
    ASSERT_TRUE(h.wait_ready()) << h.err();
    ASSERT_EQ(check_in(ns.ns_path(), tmp.path(), id).exit_code, 0);
    h.stop(SIGKILL);  // no clean-up: the files stay behind
  }
  ASSERT_TRUE(holder_test::exists(tmp / (id + ".holder.json")));
  auto r = check_in(ns.ns_path(), tmp.path(), id);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(holder_test::line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("gone"), std::string::npos) << r.err;
}

TEST(HolderCheck, FromAnotherPidNamespaceReliesOnTheLock) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("lock");
  Holder h(tmp.path(), id, {"--socket"}, Mode::pid1);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  auto ok = check_in(h.ns_path(), tmp.path(), id);
  EXPECT_EQ(ok.exit_code, 0) << ok.describe();
  EXPECT_NE(ok.out.find("another pid namespace"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("is held"), std::string::npos) << ok.out;
}

TEST(HolderCheck, FailsWhenNothingIsPublished) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  NetnsChild ns;
  auto r = check_in(ns.ns_path(), tmp.path(), "nobody-here");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("nobody-here.holder.json\" does not exist"), std::string::npos) << r.err;
}

}  // namespace
