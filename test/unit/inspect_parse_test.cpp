// inspect's pure parts: endpoints, port lists, Ceph classification and
// grouping, doctor's output and the ceph-csi monitor lookup.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/tcp.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/inspect/ceph_ports.hpp"
#include "netns_exec/inspect/doctor.hpp"
#include "netns_exec/inspect/ip_address.hpp"
#include "netns_exec/inspect/socket_owners.hpp"
#include "netns_exec/inspect/text_table.hpp"

namespace netns::inspect {
namespace {

using testing::HasSubstr;

TEST(InspectEndpoint, ParsesIpv4AndBracketedIpv6) {
  auto v4 = Endpoint::parse("198.18.0.10:6789", "--mon");
  EXPECT_EQ(v4.addr.family, AF_INET);
  EXPECT_EQ(v4.port, 6789);
  EXPECT_EQ(v4.str(), "198.18.0.10:6789");
  auto v6 = Endpoint::parse("[fd00::10]:3300", "--mon");
  EXPECT_EQ(v6.addr.family, AF_INET6);
  EXPECT_EQ(v6.str(), "[fd00::10]:3300");
  EXPECT_EQ(Endpoint::parse("198.18.0.10", "m", 6789).port, 6789);
}

TEST(InspectEndpoint, RejectsMalformedValuesNamingThem) {
  for (const char* bad :
       {"198.18.0.10", "198.18.0.10:", "198.18.0.10:0", "198.18.0.10:65536", "198.18.0.10:67x",
        "mon.example:6789", "fd00::1:6789", "[fd00::1", "[fd00::1]6789", ""}) {
    try {
      (void)Endpoint::parse(bad, "--mon");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_THAT(e.what(), HasSubstr("--mon " + quote(bad)));
    }
  }
}

TEST(InspectPorts, ParsesListsAndRanges) {
  auto r = parse_port_ranges("3300,6789,6800-7568", "--ports");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[2], (PortRange{6800, 7568}));
  EXPECT_EQ(format_port_ranges(r), "3300,6789,6800-7568");
  for (const char* bad : {"", "0", "70000", "7568-6800", "1,,2", "a", "1-"})
    EXPECT_THROW(parse_port_ranges(bad, "--ports"), Error) << bad;
}

TEST(InspectPorts, ClassifiesByThePeersPort) {
  CephPorts ports;
  EXPECT_EQ(ports.classify(3300), CephRole::mon);
  EXPECT_EQ(ports.classify(6789), CephRole::mon);
  EXPECT_EQ(ports.classify(6800), CephRole::osd);
  EXPECT_EQ(ports.classify(7568), CephRole::osd);
  EXPECT_EQ(ports.classify(7569), CephRole::none);
  EXPECT_EQ(ports.classify(22), CephRole::none);
}

InetSocket tcp(const char* local, const char* remote, uint8_t state, uint64_t inode = 1) {
  InetSocket s;
  s.proto = Proto::tcp;
  s.local = Endpoint::parse(local, "local");
  s.remote = Endpoint::parse(remote, "remote", 0);  // "ADDR" alone: port 0, no peer
  s.state = state;
  s.inode = inode;
  return s;
}

TEST(InspectSessions, GroupsCephSessionsByPeerAndCountsEstablished) {
  std::vector<InetSocket> socks = {
      tcp("198.18.1.1:40000", "198.18.2.1:6789", TCP_ESTABLISHED),
      tcp("198.18.1.1:40001", "198.18.2.2:6800", TCP_ESTABLISHED),
      tcp("198.18.1.1:40002", "198.18.2.2:6800", TCP_TIME_WAIT, 0),
      tcp("198.18.1.1:40003", "198.18.2.2:6800", TCP_ESTABLISHED),
      tcp("198.18.1.1:40004", "198.18.2.3:22", TCP_ESTABLISHED),  // not Ceph
      tcp("198.18.1.1:6789", "0.0.0.0", TCP_LISTEN),              // a listener, no peer
  };
  auto groups = group_sessions(socks, CephPorts{});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].peer.str(), "198.18.2.1:6789");
  EXPECT_EQ(groups[0].role, CephRole::mon);
  EXPECT_EQ(groups[1].peer.str(), "198.18.2.2:6800");
  EXPECT_EQ(groups[1].role, CephRole::osd);
  EXPECT_EQ(groups[1].established, 2u);
  EXPECT_EQ(groups[1].sockets.size(), 3u);
  EXPECT_EQ(count_established_sessions(socks, CephPorts{}), 3u);
}

TEST(InspectText, AlignsColumnsWithoutTrailingBlanks) {
  TextTable t({"A", "LONGER"}, "");
  t.add({"xxxx", "y"});
  EXPECT_EQ(t.render(), "A     LONGER\nxxxx  y\n");
}

TEST(InspectDoctor, RendersOneLinePerCheckAndAHintUnderEachFailure) {
  std::vector<Check> checks = {
      {"lo up", CheckStatus::pass, "lo is up", ""},
      {"route to 198.18.0.1:6789", CheckStatus::fail, "no route", "add a route"},
      {"connect to 198.18.0.1:6789", CheckStatus::skip, "no route (see above)", ""},
  };
  EXPECT_EQ(render_checks(checks),
            "PASS  lo up                       lo is up\n"
            "FAIL  route to 198.18.0.1:6789    no route\n"
            "      hint: add a route\n"
            "SKIP  connect to 198.18.0.1:6789  no route (see above)\n");
  EXPECT_FALSE(all_passed(checks));
  checks.erase(checks.begin() + 1);
  EXPECT_TRUE(all_passed(checks)) << "SKIP is not a failure";
}

TEST(InspectDoctor, ReadsMonitorsFromTheCephCsiConfig) {
  test::TempDir dir;
  std::string config = dir / "config.json";
  {
    UniqueFd f = open_fd(config, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    write_all(f.get(),
              R"([{"clusterID":"other","monitors":["198.18.9.9:6789"]},
                  {"clusterID":"a","monitors":["198.18.0.1:3300","198.18.0.2"]},
                  {"clusterID":"bad","monitors":["mon-a.example:6789"]}])",
              config);
  }
  auto mons = monitors_from_config(config, "a");
  ASSERT_EQ(mons.size(), 2u);
  EXPECT_EQ(mons[0].str(), "198.18.0.1:3300");
  EXPECT_EQ(mons[1].str(), "198.18.0.2:6789") << "a monitor without a port gets 6789";
  try {
    (void)monitors_from_config(config, "missing");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::not_found);
    EXPECT_THAT(e.what(), HasSubstr("\"missing\""));
  }
  try {
    (void)monitors_from_config(config, "bad");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"mon-a.example:6789\""));
  }
}

TEST(InspectOwners, FindsTheProcessHoldingASocketAndNoneForOthers) {
  UniqueFd sock = make_socket(AF_INET, SOCK_DGRAM, 0);
  struct stat st {};
  ASSERT_EQ(::fstat(sock.get(), &st), 0);
  uint64_t mine = st.st_ino;
  uint64_t nobodys = 1;  // inode 1 is never a socket
  auto owners = find_socket_owners({mine, nobodys});
  ASSERT_TRUE(owners.contains(mine));
  EXPECT_EQ(owners.at(mine), ::getpid());
  EXPECT_FALSE(owners.contains(nobodys));
}

}  // namespace
}  // namespace netns::inspect
