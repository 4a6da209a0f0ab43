// How a server's host is read by the programs that consume it (inet_pton,
// glibc, the kernel's in4_pton), the strict form an operator declares, the
// declaration of the holders that serve non-Ceph targets
// (NETNS_EXEC_TARGETS, the most specific entry winning), and the target
// address an nvme / mount.nfs command names.
#include <gtest/gtest.h>

#include "netns/error.hpp"
#include "netns_exec/shim/addresses.hpp"
#include "netns_exec/shim/targets.hpp"
#include "netns_exec/shim/tools.hpp"

namespace {

using namespace netns::exec::shim;
using Strings = std::vector<std::string>;

bool has(const std::string& text, std::string_view needle) {
  return text.find(needle) != std::string::npos;
}

TEST(ShimAddresses, WhatEveryReaderReadsAlike) {
  for (const auto& [written, read] : std::vector<std::pair<std::string, std::string>>{
           {"198.18.4.1", "198.18.4.1"},
           {"fd00:0:0::5", "fd00::5"},
           {"FD00::5", "fd00::5"},
           {"[fd00::5]", "fd00::5"},
           {"fe80::1%eth0", "fe80::1"},
           {"[fe80::1%eth0]", "fe80::1"},
           {"::ffff:198.18.4.1", "198.18.4.1"},
           {"[::ffff:198.18.4.1]", "198.18.4.1"},
           {"::FFFF:c612:401", "198.18.4.1"},
       }) {
    AddressReadings r = read_host(written);
    EXPECT_EQ(r.addresses, Strings{read}) << written;
    EXPECT_EQ(r.name, "") << written;
    EXPECT_TRUE(r.agree()) << written;
    EXPECT_EQ(r.text, read) << written;
  }
}

TEST(ShimAddresses, SpellingsTheConsumersReadDifferently) {
  // Leading zeros: glibc's inet_aton reads octal, the kernel decimal.
  AddressReadings zeros = read_host("198.18.4.020");
  EXPECT_EQ(zeros.addresses, (Strings{"198.18.4.16", "198.18.4.20"}));
  EXPECT_EQ(zeros.name, "");
  EXPECT_FALSE(zeros.agree());
  EXPECT_EQ(zeros.text, "198.18.4.16 (glibc), 198.18.4.20 (the kernel)");
  // "018" is no octal number: glibc reads no address and asks DNS.
  AddressReadings eight = read_host("198.018.4.1");
  EXPECT_EQ(eight.addresses, Strings{"198.18.4.1"});
  EXPECT_EQ(eight.name, "198.018.4.1");
  EXPECT_FALSE(eight.agree());
  EXPECT_TRUE(has(eight.text, "198.18.4.1 (the kernel)")) << eight.text;
  EXPECT_TRUE(has(eight.text, "(DNS)")) << eight.text;
  // glibc alone reads short forms and hex.
  EXPECT_EQ(read_host("198.18.1036").addresses, Strings{"198.18.4.12"});
  EXPECT_EQ(read_host("198.18.1036").name, "");
  EXPECT_EQ(read_host("0xc6.18.4.1").addresses, Strings{"198.18.4.1"});
  EXPECT_EQ(read_host("0xc6.18.4.1").name, "");
  // Zeros every reader reads alike still say so.
  EXPECT_EQ(read_host("198.18.4.01").addresses, Strings{"198.18.4.1"});
}

TEST(ShimAddresses, NamesAreLowerCasedWithoutTheTrailingDot) {
  AddressReadings r = read_host("NFS.Example.");
  EXPECT_TRUE(r.addresses.empty());
  EXPECT_EQ(r.name, "nfs.example");
  EXPECT_TRUE(r.agree());
  EXPECT_EQ(read_host("Mon-A.rook-ceph.svc").name, "mon-a.rook-ceph.svc");
  // Out of range for every numeric reader: a name (which DNS will not have).
  EXPECT_TRUE(read_host("198.18.4.256").addresses.empty());
}

TEST(ShimAddresses, DeclaredAddressesAreStrict) {
  Declared a = parse_declared("198.18.4.7", "T");
  EXPECT_EQ(a.address, "198.18.4.7");
  EXPECT_EQ(a.prefix, 32u);
  EXPECT_FALSE(a.ipv6);
  Declared n = parse_declared("198.18.4.0/24", "T");
  EXPECT_EQ(n.address, "198.18.4.0");
  EXPECT_EQ(n.prefix, 24u);
  Declared v6 = parse_declared("FD00:4:0::/64", "T");
  EXPECT_EQ(v6.address, "fd00:4::");
  EXPECT_EQ(v6.prefix, 64u);
  EXPECT_TRUE(v6.ipv6);
  Declared name = parse_declared("NFS.Example.", "T");
  EXPECT_EQ(name.name, "nfs.example");
  EXPECT_EQ(name.address, "");
  // IPv4-mapped: the IPv4 address or network it stands for.
  Declared mapped = parse_declared("::ffff:198.18.4.7", "T");
  EXPECT_EQ(mapped.address, "198.18.4.7");
  EXPECT_EQ(mapped.prefix, 32u);
  EXPECT_FALSE(mapped.ipv6);
  Declared mapped_net = parse_declared("::ffff:198.18.0.0/112", "T");
  EXPECT_EQ(mapped_net.address, "198.18.0.0");
  EXPECT_EQ(mapped_net.prefix, 16u);
  EXPECT_FALSE(mapped_net.ipv6);
  EXPECT_EQ(coverage(mapped_net, "198.18.200.1"), 16);

  for (const char* bad : {"198.18.4.020", "198.018.4.1", "198.18.1036", "0xc6.18.4.1",
                          "198.18.4.0/33", "fd00::/129", "198.18.4.0/x", "198.18.4.0/",
                          "198.18.4.0/-1", "nfs.example/24", "::ffff:198.18.0.0/64", ""}) {
    try {
      parse_declared(bad, "the-variable");
      ADD_FAILURE() << "\"" << bad << "\" was accepted";
    } catch (const netns::Error& e) {
      EXPECT_EQ(e.code(), netns::Errc::invalid_argument) << bad;
      EXPECT_TRUE(has(e.what(), "the-variable")) << e.what();
    }
  }
  // The refusal of a spelling read two ways says both ways.
  try {
    parse_declared("198.18.4.020", "T");
  } catch (const netns::Error& e) {
    EXPECT_TRUE(has(e.what(), "198.18.4.16")) << e.what();
    EXPECT_TRUE(has(e.what(), "198.18.4.20")) << e.what();
  }
}

TEST(ShimAddresses, CoverageIsThePrefixLength) {
  EXPECT_EQ(coverage(parse_declared("198.18.0.0/15", "T"), "198.18.0.1"), 15);
  EXPECT_EQ(coverage(parse_declared("198.18.0.0/15", "T"), "198.19.255.254"), 15);
  EXPECT_EQ(coverage(parse_declared("198.18.0.0/15", "T"), "198.20.0.1"), -1);
  EXPECT_EQ(coverage(parse_declared("198.18.4.7", "T"), "198.18.4.7"), 32);
  EXPECT_EQ(coverage(parse_declared("198.18.4.7", "T"), "198.18.4.8"), -1);
  EXPECT_EQ(coverage(parse_declared("0.0.0.0/0", "T"), "198.19.2.3"), 0);
  EXPECT_EQ(coverage(parse_declared("0.0.0.0/0", "T"), "fd00::1"), -1)
      << "an IPv6 address is in no IPv4 network";
  EXPECT_EQ(coverage(parse_declared("fd00:4::/64", "T"), "fd00:4::9"), 64);
  EXPECT_EQ(coverage(parse_declared("fd00:4::/64", "T"), "198.18.4.9"), -1);
  // Not byte aligned.
  EXPECT_EQ(coverage(parse_declared("198.18.4.128/25", "T"), "198.18.4.200"), 25);
  EXPECT_EQ(coverage(parse_declared("198.18.4.128/25", "T"), "198.18.4.100"), -1);
  // A name: only itself, above any network.
  EXPECT_EQ(coverage(parse_declared("nfs.example", "T"), "nfs.example"), 129);
  EXPECT_EQ(coverage(parse_declared("nfs.example", "T"), "nfs.example.org"), -1);
  EXPECT_EQ(coverage(parse_declared("nfs.example", "T"), "198.18.4.1"), -1);
}

TEST(ShimTargets, TheDeclarationIsReadInOrder) {
  auto holders =
      parse_targets(" gw-a = 198.18.4.0/24, 198.18.5.7 ; nfs-a=NFS.Example;;gw6=fd00:4::/64 ");
  ASSERT_EQ(holders.size(), 3u);
  EXPECT_EQ(holders[0].id, "gw-a");
  ASSERT_EQ(holders[0].addresses.size(), 2u);
  EXPECT_EQ(holders[0].addresses[0].text, "198.18.4.0/24");
  EXPECT_EQ(holders[0].addresses[1].text, "198.18.5.7");
  EXPECT_EQ(holders_covering(holders, "198.18.4.255"), Strings{"gw-a"});
  EXPECT_EQ(holders_covering(holders, "198.18.5.7"), Strings{"gw-a"});
  EXPECT_TRUE(holders_covering(holders, "198.18.5.8").empty());
  EXPECT_TRUE(holders_covering(holders, "198.18.3.255").empty());
  EXPECT_EQ(holders_covering(holders, "nfs.example"), Strings{"nfs-a"});
  EXPECT_EQ(holders_covering(holders, read_host("[fd00:4:0::9]").addresses.front()),
            Strings{"gw6"});
  EXPECT_EQ(holders_covering(holders, read_host("::ffff:198.18.4.9").addresses.front()),
            Strings{"gw-a"});
  EXPECT_TRUE(parse_targets("").empty());
  EXPECT_TRUE(parse_targets(" ; ").empty());
}

TEST(ShimTargets, TheMostSpecificDeclarationWins) {
  auto holders = parse_targets("a=198.18.0.0/16;b=198.18.4.0/24");
  EXPECT_EQ(holders_covering(holders, "198.18.4.9"), Strings{"b"});
  EXPECT_EQ(holders_covering(holders, "198.18.5.1"), Strings{"a"});
  // In either order.
  EXPECT_EQ(holders_covering(parse_targets("b=198.18.4.0/24;a=198.18.0.0/16"), "198.18.4.9"),
            Strings{"b"});
  // An address before the network it is in.
  EXPECT_EQ(holders_covering(parse_targets("a=198.18.4.0/24;b=198.18.4.7"), "198.18.4.7"),
            Strings{"b"});
  // The same prefix for two holders: both own it (the decision calls that ambiguous).
  EXPECT_EQ(holders_covering(parse_targets("a=198.18.4.0/24;b=198.18.4.0/24"), "198.18.4.9"),
            (Strings{"a", "b"}));
  EXPECT_EQ(holders_covering(parse_targets("a=198.18.4.7;b=198.18.4.7"), "198.18.4.7"),
            (Strings{"a", "b"}));
  // One holder declaring it twice is one owner.
  EXPECT_EQ(holders_covering(parse_targets("a=198.18.4.0/24,198.18.4.0/25"), "198.18.4.9"),
            Strings{"a"});
}

TEST(ShimTargets, BadDeclarationsAreRefusedNamingTheEntry) {
  for (const char* bad :
       {"gw-a", "gw-a=", "gw-a= , ", "../x=198.18.4.1", "=198.18.4.1", "gw-a=198.18.4.0/33",
        "gw-a=fd00::/129", "gw-a=198.18.4.0/x", "gw-a=198.18.4.020", "gw-a=198.18.4.1;gw-b"}) {
    try {
      parse_targets(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const netns::Error& e) {
      EXPECT_TRUE(has(e.what(), "NETNS_EXEC_TARGETS")) << e.what();
    }
  }
}

TEST(ShimTargets, TheAddressAnNvmeCommandNames) {
  auto named = [](const Strings& args) {
    Named n = nvme_target(*tool_named("nvme"), args);
    return std::make_pair(n.text, n.where);
  };
  EXPECT_EQ(named({"connect", "-t", "tcp", "-n", "nqn.x", "-a", "198.18.4.1", "-s", "4420"}),
            std::make_pair(std::string("198.18.4.1"), std::string("-a")));
  EXPECT_EQ(named({"connect", "--traddr=198.18.4.2"}).second, "--traddr");
  EXPECT_EQ(named({"connect", "--traddr", "198.18.4.3"}).first, "198.18.4.3");
  EXPECT_EQ(named({"connect", "--trad=198.18.4.4"}).first, "198.18.4.4")
      << "getopt_long takes a prefix";
  EXPECT_EQ(named({"discover", "-a198.18.4.5"}).first, "198.18.4.5");
  EXPECT_EQ(named({"connect", "-a", "198.18.4.1", "-a", "198.18.4.9"}).first, "198.18.4.9")
      << "the last wins";
  EXPECT_EQ(named({"connect", "--traddr=198.18.4.1", "-a", "198.18.4.9"}).first, "198.18.4.9");
  Named v6 = nvme_target(*tool_named("nvme"), {"connect-all", "-a", "FD00::0:1"});
  EXPECT_EQ(v6.text, "FD00::0:1");
  ASSERT_EQ(v6.servers.size(), 1u);
  EXPECT_EQ(v6.servers[0].host.addresses, Strings{"fd00::1"});
  Named mapped = nvme_target(*tool_named("nvme"), {"connect", "-a", "::ffff:198.18.4.1"});
  ASSERT_EQ(mapped.servers.size(), 1u);
  EXPECT_EQ(mapped.servers[0].host.addresses, Strings{"198.18.4.1"});
  Named zeros = nvme_target(*tool_named("nvme"), {"connect", "-a", "198.18.4.020"});
  ASSERT_EQ(zeros.servers.size(), 1u);
  EXPECT_EQ(zeros.servers[0].host.addresses, (Strings{"198.18.4.16", "198.18.4.20"}));
  // A connect naming none: its targets come from a file, which cannot be told.
  for (const Strings& args : {Strings{"connect", "--", "-a", "198.18.4.1"},
                              Strings{"connect", "--transport", "tcp"}, Strings{"connect-all"}}) {
    Named n = nvme_target(*tool_named("nvme"), args);
    EXPECT_FALSE(n.named()) << args.back();
    EXPECT_TRUE(has(n.unknown, "discovery.conf")) << n.unknown;
  }
  // Not a connect: nothing named, nothing unknown.
  for (const Strings& args :
       {Strings{"disconnect", "-d", "/dev/nvme0"}, Strings{"list-subsys", "-o", "json"}, Strings{},
        Strings{"connect", "--help", "-a", "198.18.4.1"}}) {
    Named n = nvme_target(*tool_named("nvme"), args);
    EXPECT_FALSE(n.named());
    EXPECT_EQ(n.unknown, "");
  }
  EXPECT_TRUE(nvme_connects(*tool_named("nvme"), {"connect-all"}));
  EXPECT_TRUE(nvme_connects(*tool_named("nvme"), {"discover", "-a", "x"}));
  EXPECT_TRUE(nvme_connects(*tool_named("nvme"), {"dim"}));
  EXPECT_FALSE(nvme_connects(*tool_named("nvme"), {"connect", "--help"}));
  EXPECT_FALSE(nvme_connects(*tool_named("nvme"), {"connect", "-h"}));
  EXPECT_FALSE(nvme_connects(*tool_named("nvme"), {"disconnect-all"}));
  EXPECT_FALSE(nvme_connects(*tool_named("nvme"), {"list"}));
}

TEST(ShimTargets, NvmeSubcommandsAndOptionsAsNvmeCliMatchesThem) {
  const Tool& nvme = *tool_named("nvme");
  // plugin.c: leading dashes stripped; an exact name is that subcommand.
  EXPECT_TRUE(nvme_connects(nvme, {"--connect", "-a", "198.18.4.1"}));
  EXPECT_EQ(nvme_target(nvme, {"--connect", "-a", "198.18.4.1"}).text, "198.18.4.1");
  // A prefix of a session-opening subcommand: not expanded, not understood.
  for (const char* abbreviation : {"connect-a", "discov", "conn", "-di", "c"}) {
    EXPECT_TRUE(nvme_connects(nvme, {abbreviation, "-a", "198.18.4.1"})) << abbreviation;
    EXPECT_TRUE(
        has(nvme_target(nvme, {abbreviation, "-a", "198.18.4.1"}).not_understood, abbreviation))
        << abbreviation;
  }
  EXPECT_FALSE(nvme_connects(nvme, {"disconnect-all"}));
  EXPECT_FALSE(nvme_connects(nvme, {"list-s"}));
  // getopt_long_only: -traddr and -trad are --traddr; --tr is ambiguous.
  EXPECT_EQ(nvme_target(nvme, {"connect", "-traddr", "198.18.4.2"}).text, "198.18.4.2");
  EXPECT_EQ(nvme_target(nvme, {"connect", "-trad=198.18.4.3"}).text, "198.18.4.3");
  EXPECT_TRUE(has(nvme_target(nvme, {"connect", "--tr", "x", "-a", "198.18.4.1"}).not_understood,
                  "ambiguous"));
  // An option the subcommand lacks; a short one glued to its value.
  EXPECT_TRUE(
      has(nvme_target(nvme, {"connect", "--bogus", "-a", "198.18.4.1"}).not_understood, "--bogus"));
  EXPECT_TRUE(has(nvme_target(nvme, {"connect", "-p", "-a", "198.18.4.1"}).not_understood, "-p"))
      << "--persistent is discover's, not connect's";
  EXPECT_EQ(nvme_target(nvme, {"connect", "-gG", "-ntest", "-a198.18.4.4"}).text, "198.18.4.4");
  EXPECT_EQ(nvme_target(nvme, {"connect", "-gG", "-ntest", "-a198.18.4.4"}).not_understood, "");
}

TEST(ShimTargets, NfsOptionsAreTheTablesOrNotUnderstood) {
  const Tool& nfs = *tool_named("mount.nfs");
  EXPECT_EQ(nfs_server(nfs, {"198.18.6.2:/e", "/m", "-o", "vers=4.1,proto=tcp,_netdev,x-kubelet"})
                .not_understood,
            "");
  EXPECT_EQ(
      nfs_server(nfs, {"198.18.6.2:/e", "/m", "-o", "vers=3,mounthost=198.19.7.1"}).servers.size(),
      2u);
  EXPECT_TRUE(has(nfs_server(nfs, {"198.18.6.2:/e", "/m", "-o", "adr=198.19.7.1"}).not_understood,
                  "adr=198.19.7.1"));
  EXPECT_TRUE(has(nfs_server(nfs, {"198.18.6.2:/e", "/m", "--bogus"}).not_understood, "--bogus"));
}

TEST(ShimTargets, TheServerAnNfsMountNames) {
  Named v4 = nfs_server(*tool_named("mount.nfs"), {"198.18.6.2:/export", "/mnt", "-o", "vers=4.1"});
  EXPECT_EQ(v4.text, "198.18.6.2");
  EXPECT_EQ(v4.where, "the mount source");
  ASSERT_EQ(v4.servers.size(), 1u);
  EXPECT_EQ(v4.servers[0].host.addresses, Strings{"198.18.6.2"});
  Named name = nfs_server(*tool_named("mount.nfs"), {"-o", "ro", "NFS.example:/", "/mnt"});
  ASSERT_EQ(name.servers.size(), 1u);
  EXPECT_EQ(name.servers[0].host.name, "nfs.example");
  Named v6 = nfs_server(*tool_named("mount.nfs"), {"[fd00:6::2]:/export/a", "/mnt"});
  EXPECT_EQ(v6.text, "[fd00:6::2]");
  ASSERT_EQ(v6.servers.size(), 1u);
  EXPECT_EQ(v6.servers[0].host.addresses, Strings{"fd00:6::2"});
  // The kernel takes the address from addr= when given: both are named.
  Named addr = nfs_server(*tool_named("mount.nfs"),
                          {"nfs.example:/e", "/mnt", "-o", "vers=4.2,addr=198.18.6.2"});
  ASSERT_EQ(addr.servers.size(), 2u);
  EXPECT_EQ(addr.servers[1].host.addresses, Strings{"198.18.6.2"});
  EXPECT_TRUE(has(addr.where, "addr= in -o")) << addr.where;
  Named mountaddr =
      nfs_server(*tool_named("mount.nfs"), {"198.18.6.2:/e", "/mnt", "-o", "mountaddr=198.18.6.3"});
  EXPECT_EQ(mountaddr.servers.size(), 2u);
  // None: `mount.nfs -V`, a source that is no SERVER:/EXPORT.
  Named version = nfs_server(*tool_named("mount.nfs"), {"-V"});
  EXPECT_FALSE(version.named());
  EXPECT_FALSE(version.unknown.empty());
  Named device = nfs_server(*tool_named("mount.nfs"), {"/dev/sda1", "/mnt"});
  EXPECT_FALSE(device.named()) << "no SERVER:/ source";
  EXPECT_TRUE(has(device.unknown, "/dev/sda1")) << device.unknown;
}

}  // namespace
