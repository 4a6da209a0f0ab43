// inspect's library against a real two-namespace storage network: links,
// addresses, routes, the kernel's route choice, a monitor session and a vxlan
// link's kernel socket, all read from a thread that is not the caller's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/tcp.h>

#include <algorithm>

#include "inspect_fixture.hpp"
#include "netns/nsfd.hpp"
#include "netns_exec/inspect/inspect_report.hpp"
#include "netns_exec/inspect/netns_thread.hpp"
#include "netns_exec/inspect/rtnl.hpp"

namespace netns::test {
namespace {

using inspect::IpAddr;

TEST(InspectNetnsThread, EntersTheNamespaceOnItsOwnThreadOnly) {
  NETNS_REQUIRE_ROOT();
  NetnsChild child;
  NsId before = current_netns_id();
  ASSERT_NE(before, child.ns_id());
  UniqueFd fd = open_fd(child.ns_path(), O_RDONLY);
  NsId seen;
  inspect::run_in_netns(fd.get(), child.ns_path(), [&] { seen = current_netns_id(); });
  EXPECT_EQ(seen, child.ns_id());
  EXPECT_EQ(current_netns_id(), before);
}

TEST(InspectNetnsThread, ReportsSetnsFailureWithThePath) {
  NETNS_REQUIRE_ROOT();
  UniqueFd fd = open_fd("/proc/self/ns/pid", O_RDONLY);
  try {
    inspect::run_in_netns(fd.get(), "/proc/self/ns/pid", [] {});
    FAIL() << "setns into a pid namespace fd as CLONE_NEWNET must fail";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("setns"));
    EXPECT_THAT(e.what(), testing::HasSubstr("\"/proc/self/ns/pid\""));
  }
}

TEST(InspectRtnl, LinksAddressesRoutesAndTheKernelsChoice) {
  NETNS_REQUIRE_ROOT();
  StorageNet net;
  NsId before = current_netns_id();
  UniqueFd fd = net.inspected_fd();
  auto socks = inspect::netlink_sockets_in_netns(fd.get(), net.inspected.ns_path());
  inspect::RtnlClient rtnl(std::move(socks.route));

  auto links = rtnl.links();
  auto va = std::find_if(links.begin(), links.end(), [&](auto& l) { return l.name == net.va; });
  ASSERT_NE(va, links.end());
  EXPECT_EQ(va->kind, "veth");
  EXPECT_TRUE(va->up);
  EXPECT_EQ(va->mtu, 1500u);
  auto lo = std::find_if(links.begin(), links.end(), [](auto& l) { return l.name == "lo"; });
  ASSERT_NE(lo, links.end());
  EXPECT_TRUE(lo->loopback);
  EXPECT_TRUE(lo->up);

  auto addrs = rtnl.addresses();
  EXPECT_TRUE(std::any_of(addrs.begin(), addrs.end(), [&](auto& a) {
    return a.link == net.va && a.addr.str() == kInspectedAddr && a.prefix == 24;
  }));

  auto routes = rtnl.routes();
  EXPECT_TRUE(std::any_of(routes.begin(), routes.end(), [&](auto& r) {
    return r.dst == kMonNet && r.gateway.str() == kCephGateway && r.dev == net.va;
  }));

  auto chosen = rtnl.route_to(*IpAddr::parse(kMonAddr));
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->gateway.str(), kCephGateway);
  EXPECT_EQ(chosen->dev, net.va);
  EXPECT_FALSE(rtnl.route_to(*IpAddr::parse("198.19.200.1")).has_value());

  EXPECT_EQ(current_netns_id(), before);
}

TEST(InspectReport, ListsAMonitorSessionAndKeepsTheCallersNamespace) {
  NETNS_REQUIRE_ROOT();
  StorageNet net;
  UniqueFd listener = net.listen_mon(6789);
  UniqueFd client = net.connect_mon(6789);
  NsId before = current_netns_id();

  UniqueFd fd = net.inspected_fd();
  inspect::Identity id{net.inspected.ns_path(), "", net.inspected.ns_id(), std::nullopt};
  auto report = inspect::collect_report(fd.get(), net.inspected.ns_path(), id);
  EXPECT_EQ(current_netns_id(), before);

  ASSERT_EQ(report.sessions.size(), 1u);
  const auto& g = report.sessions[0];
  EXPECT_EQ(g.peer.str(), std::string(kMonAddr) + ":6789");
  EXPECT_EQ(g.role, inspect::CephRole::mon);
  EXPECT_EQ(g.established, 1u);
  EXPECT_EQ(g.kernel, 0u) << "the client socket is ours, not the kernel's";

  auto json = inspect::render_json(report);
  ASSERT_EQ(json["ceph_sessions"].size(), 1u);
  EXPECT_EQ(json["ceph_sessions"][0]["peer"], std::string(kMonAddr) + ":6789");
  EXPECT_EQ(json["ceph_sessions"][0]["role"], "mon");
  EXPECT_EQ(json["ceph_sessions"][0]["sockets"][0]["state"], "ESTAB");
  EXPECT_EQ(json["namespace"]["netns_ino"], net.inspected.ns_id().ino);

  std::string table = inspect::render_table(report);
  EXPECT_THAT(table, testing::HasSubstr("mon   " + std::string(kMonAddr) + ":6789"));
  EXPECT_THAT(table, testing::HasSubstr(net.va));
}

TEST(InspectReport, ListsIpv6Sessions) {
  NETNS_REQUIRE_ROOT();
  NetnsChild child;
  UniqueFd fd = open_fd(child.ns_path(), O_RDONLY);
  UniqueFd listener, client;
  sockaddr_in6 sa{};
  sa.sin6_family = AF_INET6;
  sa.sin6_port = htons(3300);
  sa.sin6_addr = in6addr_loopback;
  inspect::run_in_netns(fd.get(), child.ns_path(), [&] {
    listener = make_socket(AF_INET6, SOCK_STREAM, 0);
    ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    ASSERT_EQ(::listen(listener.get(), 4), 0);
    client = make_socket(AF_INET6, SOCK_STREAM, 0);
    ASSERT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  });
  inspect::Identity id{child.ns_path(), "", child.ns_id(), std::nullopt};
  auto report = inspect::collect_report(fd.get(), child.ns_path(), id);
  ASSERT_EQ(report.sessions.size(), 1u) << inspect::render_table(report, true);
  EXPECT_EQ(report.sessions[0].peer.str(), "[::1]:3300");
  EXPECT_EQ(report.sessions[0].role, inspect::CephRole::mon);
  EXPECT_EQ(report.sessions[0].established, 1u);
}

TEST(InspectReport, ShowsAVxlanLinkAndItsKernelUdpSocket) {
  NETNS_REQUIRE_ROOT();
  StorageNet net;
  std::string vx = unique_name("vx");
  must(net.inspected.run({"ip", "link", "add", vx, "type", "vxlan", "id", "42", "dstport", "4789",
                          "remote", kCephGateway, "dev", net.va}),
       "vxlan");
  must(net.inspected.run({"ip", "link", "set", vx, "up"}), "vxlan up");

  UniqueFd fd = net.inspected_fd();
  inspect::Identity id{net.inspected.ns_path(), "", net.inspected.ns_id(), std::nullopt};
  auto report = inspect::collect_report(fd.get(), net.inspected.ns_path(), id);

  auto link =
      std::find_if(report.links.begin(), report.links.end(), [&](auto& l) { return l.name == vx; });
  ASSERT_NE(link, report.links.end());
  EXPECT_EQ(link->kind, "vxlan");

  auto kernel = report.kernel_sockets();
  auto udp = std::find_if(kernel.begin(), kernel.end(), [](auto& s) {
    return s.proto == inspect::Proto::udp && s.local.port == 4789;
  });
  ASSERT_NE(udp, kernel.end()) << inspect::render_table(report);

  auto json = inspect::render_json(report);
  bool listed = false;
  for (const auto& s : json["kernel_sockets"])
    listed |= s["proto"] == "udp" && s["local_port"] == 4789 && s["kernel"] == true;
  EXPECT_TRUE(listed) << json.dump(2);
}

}  // namespace
}  // namespace netns::test
