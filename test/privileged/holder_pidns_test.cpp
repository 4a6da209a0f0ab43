// netns-holder in a child pid namespace: refuses symlink mode as PID 1, and
// as PID 1 in socket mode reaps the orphans that are reparented to it.
#include <unistd.h>

#include "holder_helpers.hpp"
#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::Holder;
using holder_test::Mode;
using netns::test::children_of;
using netns::test::TempDir;
using netns::test::unique_name;

TEST(HolderPidNs, RefusesSymlinkModeAsPid1AndSuggestsHostPidOrSocket) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string dir = tmp / "never-created";
  auto r = netns::test::run_command(
      {"unshare", "--pid", "--fork", "--kill-child", "--net", "--", holder_test::kHolder,
       "--cluster-id", unique_name("p1"), "--dir", dir},
      holder_test::within(10s));
  EXPECT_EQ(r.exit_code, 4) << r.describe();
  EXPECT_NE(r.err.find("hostPID: true"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--socket"), std::string::npos) << r.err;
  EXPECT_EQ(holder_test::line_count(r.err), 1u) << r.err;
  EXPECT_FALSE(holder_test::exists(dir)) << "nothing may be published";
}

TEST(HolderPidNs, AsPid1WithSocketPublishesNoLinkAndReapsOrphanedZombies) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("reap");
  // A link left by an earlier holder must not survive next to this holder's record.
  ASSERT_EQ(::symlink("/proc/1/ns/net", (tmp / (id + ".net.ns")).c_str()), 0);
  Holder h(tmp.path(), id, {"--socket"}, Mode::pid1);
  ASSERT_TRUE(h.wait_ready()) << h.err();

  auto record = netns::parse_record(netns::read_file(tmp / (id + ".holder.json")), "record");
  EXPECT_EQ(record.pid, 1);
  EXPECT_NE(record.pidns_ino, netns::current_pidns_id().ino);
  EXPECT_EQ(record.netns, h.ns_id());
  EXPECT_FALSE(holder_test::exists(tmp / (id + ".net.ns")))
      << "/proc/1/ns/net would name the host's init";
  EXPECT_TRUE(holder_test::exists(tmp / (id + ".net.sock")));

  // A shell inside the holder's pid namespace starts background sleeps and
  // exits: the sleeps are orphaned, reparented to PID 1 (the holder) and
  // become its zombies when they exit. Several exit together, so SIGCHLDs
  // coalesce.
  auto r = netns::test::run_command(
      {"nsenter", "--target", std::to_string(h.pid()), "--pid", "--", "sh", "-c",
       "for i in 1 2 3 4 5; do sleep 1 </dev/null >/dev/null 2>&1 & done; exit 0"},
      holder_test::within(10s));
  ASSERT_TRUE(r.ok()) << r.describe();
  std::vector<pid_t> adopted = children_of(h.pid());
  ASSERT_EQ(adopted.size(), 5u) << "the orphans were not reparented to the holder";
  EXPECT_TRUE(netns::test::wait_until([&] { return children_of(h.pid()).empty(); }, 5s))
      << children_of(h.pid()).size() << " children left (zombies not reaped)";
  for (pid_t pid : adopted)
    EXPECT_FALSE(holder_test::exists("/proc/" + std::to_string(pid)))
        << "pid " << pid << " not reaped";

  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_FALSE(holder_test::exists(tmp / (id + ".holder.json")));
  EXPECT_FALSE(holder_test::exists(tmp / (id + ".net.sock")));
}

TEST(HolderPidNs, NotPid1InAChildPidNamespaceWarnsAndPublishes) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("kind");
  // Like a hostPID pod on a kind node: a non-initial pid namespace, not its
  // init. sh is PID 1 here, the holder its child (pid 2).
  std::string script =
      holder_test::kHolder + " --cluster-id " + id + " --dir " + tmp.path() + " & wait";
  netns::test::Process proc(
      {"unshare", "--pid", "--fork", "--kill-child", "--net", "--", "sh", "-c", script});
  auto ready = [&] { return proc.err().find("holding net:[") != std::string::npos; };
  ASSERT_TRUE(netns::test::wait_until(ready, 10s)) << proc.err();
  EXPECT_NE(proc.err().find("warning: running as pid 2 in a non-initial pid namespace"),
            std::string::npos)
      << proc.err();
  auto record = netns::parse_record(netns::read_file(tmp / (id + ".holder.json")), "record");
  EXPECT_EQ(record.pid, 2);
  EXPECT_NE(record.pidns_ino, netns::current_pidns_id().ino)
      << "readers compare this with their own";
  EXPECT_EQ(holder_test::read_link(tmp / (id + ".net.ns")), "/proc/2/ns/net");
}

}  // namespace
