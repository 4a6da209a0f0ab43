// netns-exec fence-info: the addresses a fence of this node must cover are
// the node's own and every holder's, in each output form; and an answer
// that cannot be complete says so with exit status 1.
#include <fcntl.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "holder_helpers.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::Holder;
using netns::test::ip_in;
using netns::test::TempDir;
using netns::test::unique_name;

netns::test::RunResult fence_info(std::vector<std::string> args) {
  args.insert(args.begin(), {NETNS_EXEC_BIN, "fence-info"});
  return netns::test::run_command(args, holder_test::within(20s));
}

bool published(const std::string& record, const std::string& text) {
  auto a = netns::parse_record(netns::read_file(record), record).client_addresses;
  return a && netns::format_client_addresses(*a) == text;
}

void write_new_file(const std::string& path, const std::string& text) {
  auto fd = netns::open_fd(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  ASSERT_EQ(::write(fd.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

// A node (its own namespace, with one storage address) and a holder whose
// namespace has another: the fence covers both, and the node's address alone
// is not the whole answer.
struct Node {
  TempDir tmp;
  std::string id = unique_name("fence");
  netns::test::NetnsChild node;  // stands in for the node's own namespace
  std::unique_ptr<Holder> holder;

  void start() {
    ip_in(node.ns_path(), {"link", "add", "eth9", "type", "veth", "peer", "name", "eth9p"});
    ip_in(node.ns_path(), {"addr", "add", "198.18.9.1/24", "dev", "eth9"});
    holder = std::make_unique<Holder>(tmp.path(), id);
    ASSERT_TRUE(holder->wait_ready()) << holder->err();
    ip_in(holder->ns_path(), {"link", "add", "net1", "type", "veth", "peer", "name", "net1p"});
    ip_in(holder->ns_path(), {"addr", "add", "198.18.9.50/24", "dev", "net1"});
    ASSERT_TRUE(netns::test::wait_until(
        [&] { return published(tmp / (id + ".holder.json"), "198.18.9.50/24%net1"); }, 10s))
        << holder->err();
  }
};

TEST(FenceInfo, CoversTheNodesAndEachHoldersAddressesInEveryForm) {
  NETNS_REQUIRE_ROOT();
  Node n;
  ASSERT_NO_FATAL_FAILURE(n.start());
  std::vector<std::string> where = {"--holder-dir", n.tmp.path(), "--node-netns", n.node.ns_path()};

  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = where;
    a.insert(a.end(), extra.begin(), extra.end());
    return fence_info(a);
  };

  auto json_run = with({"--output", "json"});
  ASSERT_EQ(json_run.exit_code, 0) << json_run.describe();
  auto j = nlohmann::json::parse(json_run.out);
  EXPECT_EQ(j["cidrs"], nlohmann::json({"198.18.9.1/32", "198.18.9.50/32"})) << json_run.out;
  EXPECT_EQ(j["complete"], true);
  ASSERT_EQ(j["holders"].size(), 1u) << json_run.out;
  EXPECT_EQ(j["holders"][0]["cluster_id"], n.id);
  EXPECT_EQ(j["holders"][0]["pid"], n.holder->pid());
  EXPECT_EQ(j["holders"][0]["alive"], true);
  EXPECT_EQ(j["holders"][0]["addresses"][0]["interface"], "net1");
  EXPECT_EQ(j["node"]["addresses"][0]["address"], "198.18.9.1");

  auto fence = with({"--output", "networkfence", "--name", "node-a", "--fence-class", "rbd-fence"});
  ASSERT_EQ(fence.exit_code, 0) << fence.describe();
  EXPECT_EQ(fence.out,
            "apiVersion: csiaddons.openshift.io/v1alpha1\nkind: "
            "NetworkFence\nmetadata:\n"
            "  name: \"node-a\"\nspec:\n  networkFenceClassName: \"rbd-fence\"\n"
            "  fenceState: Fenced\n  cidrs:\n    - \"198.18.9.1/32\"\n    - "
            "\"198.18.9.50/32\"\n");

  auto ceph = with({"--output", "ceph"});
  ASSERT_EQ(ceph.exit_code, 0) << ceph.describe();
  EXPECT_EQ(ceph.out,
            "ceph osd blocklist range add 198.18.9.1/32\nceph osd "
            "blocklist range add 198.18.9.50/32\n");

  auto text = with({});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_NE(text.out.find("198.18.9.50/24 on net1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fence: 198.18.9.1/32 198.18.9.50/32"), std::string::npos) << text.out;

  // The control: once the holder is gone, its addresses are not in the
  // fence any more (they were the holder's, not the node's).
  n.holder->stop(SIGTERM);
  auto after = with({"--output", "ceph"});
  ASSERT_EQ(after.exit_code, 0) << after.describe();
  EXPECT_EQ(after.out, "ceph osd blocklist range add 198.18.9.1/32\n");
}

// A version-1 record (a holder too old to publish addresses) and a record
// nobody trusted could have written make the answer incomplete: printed, but
// exit 1, and a warning that names the file and what to do.
TEST(FenceInfo, AnOldOrUntrustedRecordMakesTheAnswerIncomplete) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  netns::test::NetnsChild node;
  std::string v1 = netns::read_file(NETNS_SOURCE_DIR "/test/fixtures/compat/v1/ceph-a.holder.json");
  ASSERT_NO_FATAL_FAILURE(write_new_file(tmp / "ceph-a.holder.json", v1));
  auto old =
      fence_info({"--holder-dir", tmp.path(), "--node-netns", node.ns_path(), "--output", "json"});
  EXPECT_EQ(old.exit_code, 1) << old.describe();
  EXPECT_NE(old.err.find("ceph-a.holder.json"), std::string::npos) << old.err;
  EXPECT_NE(old.err.find("record version 1 does not publish client addresses"), std::string::npos)
      << old.err;
  EXPECT_EQ(nlohmann::json::parse(old.out)["complete"], false) << old.out;

  ASSERT_EQ(::chown((tmp / "ceph-a.holder.json").c_str(), 65534, 65534), 0);
  auto foreign = fence_info({"--holder-dir", tmp.path(), "--node-netns", node.ns_path()});
  EXPECT_EQ(foreign.exit_code, 1) << foreign.describe();
  EXPECT_NE(foreign.err.find("is owned by uid 65534"), std::string::npos) << foreign.err;

  auto missing = fence_info({"--holder-dir", tmp / "nope", "--node-netns", node.ns_path()});
  EXPECT_EQ(missing.exit_code, 1) << missing.describe();
  EXPECT_NE(missing.err.find("no such holder directory"), std::string::npos) << missing.err;
}

// A record root wrote whose holder the record check finds gone still names
// addresses the fence must cover (the mappings made through that namespace
// may still be writing), and the answer is complete: the holder is listed as
// not running. Each is a rule of the record check: the boot, the lock held by
// the holder, the holder alive.
TEST(FenceInfo, AGoneHoldersRecordStillNamesItsAddresses) {
  NETNS_REQUIRE_ROOT();
  Node n;
  ASSERT_NO_FATAL_FAILURE(n.start());
  const std::string record_path = n.tmp / (n.id + ".holder.json");
  const netns::HolderRecord live = netns::parse_record(netns::read_file(record_path), record_path);
  // The live holder's record, written before a reboot: another boot ID.
  TempDir rebooted;
  netns::HolderRecord before = live;
  before.boot_id[0] = before.boot_id[0] == '0' ? '1' : '0';
  ASSERT_NO_FATAL_FAILURE(
      write_new_file(rebooted / (n.id + ".holder.json"), netns::serialize_record(before)));
  // The live holder's record next to a lock nobody holds: its pid and start
  // time are alive, but not as the holder that wrote this record.
  TempDir unlocked;
  ASSERT_NO_FATAL_FAILURE(
      write_new_file(unlocked / (n.id + ".holder.json"), netns::serialize_record(live)));
  ASSERT_NO_FATAL_FAILURE(write_new_file(unlocked / (n.id + ".lock"), ""));

  auto run =
      fence_info({"--holder-dir", n.tmp.path(), "--holder-dir", rebooted.path(), "--holder-dir",
                  unlocked.path(), "--node-netns", n.node.ns_path(), "--output", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["complete"], true) << run.out;
  EXPECT_EQ(j["cidrs"], nlohmann::json({"198.18.9.1/32", "198.18.9.50/32"})) << run.out;
  ASSERT_EQ(j["holders"].size(), 3u) << run.out;
  // The control: the holder's own record, its holder alive.
  EXPECT_EQ(j["holders"][0]["alive"], true) << run.out;
  for (size_t i = 1; i < 3; ++i) {
    const auto& h = j["holders"][i];
    EXPECT_EQ(h["alive"], false) << run.out;
    EXPECT_EQ(h["pid"], n.holder->pid()) << run.out;
    EXPECT_EQ(h["problem"], nullptr) << run.out;
    ASSERT_EQ(h["addresses"].size(), 1u) << run.out;
    EXPECT_EQ(h["addresses"][0]["address"], "198.18.9.50") << run.out;
  }

  // Killed, the holder withdraws nothing: its own record stays, and its
  // addresses with it.
  n.holder->stop(SIGKILL);
  auto dead = fence_info({"--holder-dir", n.tmp.path(), "--node-netns", n.node.ns_path()});
  ASSERT_EQ(dead.exit_code, 0) << dead.describe();
  EXPECT_NE(dead.out.find("pid " + std::to_string(n.holder->pid()) + ", not running):"),
            std::string::npos)
      << dead.out;
  EXPECT_NE(dead.out.find("198.18.9.50/24 on net1"), std::string::npos) << dead.out;
  EXPECT_NE(dead.out.find("fence: 198.18.9.1/32 198.18.9.50/32\n"), std::string::npos) << dead.out;
}

}  // namespace
