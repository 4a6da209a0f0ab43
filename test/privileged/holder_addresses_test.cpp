// netns-holder publishes the client addresses of its namespace (what a fence
// must cover) in its record, and keeps them current: an address added or
// removed after start-up is in the record, rewritten by rename, without a
// restart and without a timer.
#include <sys/stat.h>
#include <unistd.h>

#include "holder_helpers.hpp"
#include "netns/holder_record.hpp"
#include "netns/proc.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::Holder;
using netns::test::ip_in;
using netns::test::TempDir;
using netns::test::unique_name;

std::optional<std::vector<netns::ClientAddress>> published(const std::string& path) {
  return netns::parse_record(netns::read_file(path), path).client_addresses;
}

std::string published_text(const std::string& path) {
  auto a = published(path);
  return a ? netns::format_client_addresses(*a) : "<absent>";
}

TEST(HolderAddresses, RecordFollowsTheNamespacesAddressesWithoutARestart) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("addr");
  std::string record = tmp / (id + ".holder.json");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  // A fresh namespace has only lo: no address a client could be seen from,
  // and the record says so (present and empty, not absent).
  auto first = published(record);
  ASSERT_TRUE(first.has_value()) << netns::read_file(record);
  EXPECT_TRUE(first->empty()) << published_text(record);
  EXPECT_NE(h.err().find("client addresses: none yet"), std::string::npos) << h.err();

  // The storage interface arrives after the holder started (as a late
  // Multus attachment does).
  ip_in(h.ns_path(), {"link", "add", "stor0", "type", "veth", "peer", "name", "stor0p"});
  ip_in(h.ns_path(), {"addr", "add", "198.18.7.5/24", "dev", "stor0"});
  ip_in(h.ns_path(), {"addr", "add", "2001:db8:7::5/64", "dev", "stor0", "nodad"});
  ip_in(h.ns_path(), {"link", "set", "stor0", "up"});
  const std::string both = "198.18.7.5/24%stor0 2001:db8:7::5/64%stor0";
  EXPECT_TRUE(netns::test::wait_until([&] { return published_text(record) == both; }, 10s))
      << published_text(record) << "\n"
      << h.err();
  EXPECT_NE(h.err().find("client addresses changed; republished"), std::string::npos) << h.err();
  // Everything but the addresses is as first published.
  netns::HolderRecord r = netns::parse_record(netns::read_file(record), record);
  EXPECT_EQ(r.pid, h.pid());
  EXPECT_EQ(r.netns, h.ns_id());

  // The link-local address the kernel gave stor0 is not a client address.
  EXPECT_EQ(published_text(record).find("fe80"), std::string::npos);

  // An IPv4 address of link scope is a source the kernel uses like any
  // other: a fence that left it out would be incomplete.
  ip_in(h.ns_path(), {"addr", "add", "198.18.8.6/24", "dev", "stor0", "scope", "link"});
  EXPECT_TRUE(netns::test::wait_until(
      [&] { return published_text(record).find("198.18.8.6/24%stor0") != std::string::npos; }, 10s))
      << published_text(record);
  ip_in(h.ns_path(), {"addr", "del", "198.18.8.6/24", "dev", "stor0"});

  ip_in(h.ns_path(), {"addr", "del", "198.18.7.5/24", "dev", "stor0"});
  EXPECT_TRUE(netns::test::wait_until(
      [&] { return published_text(record) == "2001:db8:7::5/64%stor0"; }, 10s))
      << published_text(record);

  // The rewritten record is still recognised as ours when withdrawing.
  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_FALSE(holder_test::exists(record)) << h.err();
}

// The control: the addresses really are read from the holder's namespace,
// not from wherever the test runs. One added in a second namespace is not
// published.
TEST(HolderAddresses, AnAddressInAnotherNamespaceIsNotPublished) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string a_id = unique_name("addra");
  std::string b_id = unique_name("addrb");
  Holder a(tmp.path(), a_id);
  Holder b(tmp.path(), b_id);
  ASSERT_TRUE(a.wait_ready()) << a.err();
  ASSERT_TRUE(b.wait_ready()) << b.err();
  ip_in(b.ns_path(), {"link", "add", "stor1", "type", "veth", "peer", "name", "stor1p"});
  ip_in(b.ns_path(), {"addr", "add", "198.18.8.5/24", "dev", "stor1"});
  EXPECT_TRUE(netns::test::wait_until(
      [&] { return published_text(tmp / (b_id + ".holder.json")) == "198.18.8.5/24%stor1"; }, 10s))
      << published_text(tmp / (b_id + ".holder.json"));
  EXPECT_EQ(published_text(tmp / (a_id + ".holder.json")), "");
}

}  // namespace
