// Transparent mode: the monitors a Ceph command names, read the way Ceph
// reads them (every spelling of -m / --mon-host / --mon_host, the last one
// winning, CEPH_ARGS after the command line, the config file's mon_host when
// none is given), and the one comparison of monitor addresses (v1:/v2:
// prefixes, address vectors, [IPv6], default ports 3300 and 6789).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <utility>

#include "netns/test/support.hpp"
#include "netns_exec/shim/monitors.hpp"
#include "netns_exec/shim/tools.hpp"

namespace {

using namespace netns::exec::shim;

// {the host as read (its first address, else its name), its ports} per monitor.
using Mon = std::pair<std::string, std::set<uint16_t>>;
std::vector<Mon> mons(std::string_view list, bool slashes = false) {
  std::vector<Mon> out;
  for (const auto& s : parse_monitors(list, slashes).monitors)
    out.emplace_back(s.host.addresses.empty() ? s.host.name : s.host.addresses.front(), s.ports);
  return out;
}
std::vector<Mon> mons(const Named& named) {
  std::vector<Mon> out;
  for (const auto& s : named.servers)
    out.emplace_back(s.host.addresses.empty() ? s.host.name : s.host.addresses.front(), s.ports);
  return out;
}
bool has(const std::string& text, std::string_view needle) {
  return text.find(needle) != std::string::npos;
}

TEST(ShimMonitors, ParsesEveryWayAMonitorIsWritten) {
  EXPECT_EQ(mons("198.18.0.1:6789"), (std::vector<Mon>{{"198.18.0.1", {6789}}}));
  EXPECT_EQ(mons("198.18.0.1"), (std::vector<Mon>{{"198.18.0.1", {3300, 6789}}}));
  EXPECT_EQ(mons("v2:198.18.0.1"), (std::vector<Mon>{{"198.18.0.1", {3300}}}));
  EXPECT_EQ(mons("v1:198.18.0.1:6789/0"), (std::vector<Mon>{{"198.18.0.1", {6789}}}));
  EXPECT_EQ(mons("[v2:198.18.0.1:3300,v1:198.18.0.1:6789]"),
            (std::vector<Mon>{{"198.18.0.1", {3300}}, {"198.18.0.1", {6789}}}));
  EXPECT_EQ(mons("[::1]:6789"), (std::vector<Mon>{{"::1", {6789}}}));
  EXPECT_EQ(mons("[0:0::1]"), (std::vector<Mon>{{"::1", {3300, 6789}}}));
  EXPECT_EQ(mons("fd00:0::5"), (std::vector<Mon>{{"fd00::5", {3300, 6789}}}));
  EXPECT_EQ(mons("[::ffff:198.18.0.1]:6789"), (std::vector<Mon>{{"198.18.0.1", {6789}}}))
      << "an IPv4-mapped monitor is the IPv4 one";
  EXPECT_EQ(mons("Mon-A.Rook-Ceph.svc.:6789"), (std::vector<Mon>{{"mon-a.rook-ceph.svc", {6789}}}));
  // Lists: commas, semicolons, blanks; bad words are kept apart.
  MonitorList list = parse_monitors("198.18.0.1:6789,198.18.0.2;198.18.0.3:3300 x:0");
  EXPECT_EQ(list.monitors.size(), 3u);
  EXPECT_EQ(list.bad, std::vector<std::string>{"x:0"});
  EXPECT_EQ(mons("198.18.0.1:6789/198.18.0.2:6789", true).size(), 2u);
  EXPECT_TRUE(mons("").empty());
  EXPECT_TRUE(mons("host:notaport").empty());
  EXPECT_EQ(parse_monitors("host:notaport").bad, std::vector<std::string>{"host:notaport"});
  EXPECT_TRUE(mons("[::1").empty());
  EXPECT_EQ(parse_monitors("198.18.0.1:70000").bad.size(), 1u) << "no such port";
}

TEST(ShimMonitors, AMonitorWrittenAsConsumersReadItDifferentlyKeepsEveryReading) {
  // glibc reads "010" as octal 8, the kernel and Ceph's parser as 10.
  MonitorList m = parse_monitors("198.18.0.010:6789");
  ASSERT_EQ(m.monitors.size(), 1u);
  EXPECT_EQ(m.monitors[0].host.addresses, (std::vector<std::string>{"198.18.0.8", "198.18.0.10"}));
  EXPECT_FALSE(m.monitors[0].host.agree());
}

TEST(ShimMonitors, TheSameMonitorHowEverItIsWritten) {
  auto same = [](std::string_view a, std::string_view b) {
    const MonitorList x = parse_monitors(a), y = parse_monitors(b);
    for (const auto& s : x.monitors)
      for (const auto& m : y.monitors) {
        for (const auto& r : s.host.addresses)
          if (same_monitor(r, s.ports, m)) return true;
        if (!s.host.name.empty() && same_monitor(s.host.name, s.ports, m)) return true;
      }
    return false;
  };
  EXPECT_TRUE(same("198.18.0.1", "198.18.0.1:6789"));
  EXPECT_TRUE(same("198.18.0.1", "v2:198.18.0.1:3300"));
  EXPECT_TRUE(same("[v2:198.18.0.1:3300,v1:198.18.0.1:6789]", "198.18.0.1:6789"));
  EXPECT_TRUE(same("v1:[::1]:6789", "::1"));
  EXPECT_TRUE(same("198.18.0.9:6789,198.18.0.1:6789", "198.18.0.1"));
  EXPECT_TRUE(same("[::ffff:198.18.0.1]:6789", "198.18.0.1"));
  EXPECT_TRUE(same("MON-A.example.:6789", "mon-a.example"));
  // Different host, different port, different messenger: not the same.
  EXPECT_FALSE(same("198.18.0.1:6789", "198.18.0.2:6789"));
  EXPECT_FALSE(same("198.18.0.1:6789", "198.18.0.1:6790"));
  EXPECT_FALSE(same("v2:198.18.0.1", "v1:198.18.0.1"));
  EXPECT_FALSE(same("198.18.0.1:3300", "198.18.0.1:6789"));
  EXPECT_FALSE(same("mon-a.example", "198.18.0.1")) << "a name is never resolved";
}

// Monitors named on rbd's command line, in its environment and in its
// config file. Every case controls the config file (CEPH_CONF), so that
// the host's /etc/ceph/ceph.conf cannot leak in.
struct CephMonitors : ::testing::Test {
  void SetUp() override {
    env.ceph_conf = tmp / "missing.conf";
    env.home = tmp.path();
  }
  // A config file as an operator would leave it: root's, 0644.
  std::string conf(const std::string& name, const std::string& text, mode_t mode = 0644) const {
    const std::string path = tmp / name;
    std::ofstream(path) << text;
    EXPECT_EQ(::chmod(path.c_str(), mode), 0);
    return path;
  }
  netns::test::TempDir tmp;
  CephEnvironment env;
};

TEST_F(CephMonitors, RbdNamesThemWithEverySpellingCephAccepts) {
  // ceph-csi's map call.
  Named m = rbd_monitors(*tool_named("rbd"),
                         {"--id", "admin", "-m", "198.18.0.1:6789,198.18.0.2:6789",
                          "--keyfile=/tmp/k", "map", "rbd/img", "--device-type", "krbd"},
                         env);
  EXPECT_EQ(m.text, "198.18.0.1:6789,198.18.0.2:6789");
  EXPECT_EQ(m.where, "-m");
  EXPECT_EQ(m.servers.size(), 2u);
  EXPECT_EQ(m.unknown, "");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"-m", "198.18.0.1"},
                                               {"-m=198.18.0.1"},
                                               {"--mon-host", "198.18.0.1"},
                                               {"--mon_host", "198.18.0.1"},
                                               {"--mon_host=198.18.0.1"},
                                               {"--mon-host=198.18.0.1"}}) {
    std::vector<std::string> call = args;
    call.insert(call.end(), {"map", "rbd/img"});
    Named n = rbd_monitors(*tool_named("rbd"), call, env);
    EXPECT_EQ(n.text, "198.18.0.1") << args.front();
    EXPECT_EQ(mons(n), (std::vector<Mon>{{"198.18.0.1", {3300, 6789}}})) << args.front();
    EXPECT_EQ(n.unknown, "") << args.front() << ": Ceph reads no config file for them";
  }
  EXPECT_EQ(rbd_monitors(*tool_named("rbd"), {"-m=198.18.0.1", "ls"}, env).where, "-m");
  EXPECT_EQ(rbd_monitors(*tool_named("rbd"), {"--mon-host", "198.18.0.1", "ls"}, env).where,
            "--mon-host");
  EXPECT_EQ(rbd_monitors(*tool_named("rbd"), {"--mon_host=198.18.0.1", "ls"}, env).where,
            "--mon_host");
  EXPECT_EQ(rbd_monitors(*tool_named("rbd"), {"--mon-host=[v2:198.18.0.1:3300]", "ls"}, env)
                .servers.size(),
            1u);
  EXPECT_EQ(mons(rbd_monitors(*tool_named("rbd"), {"--mon-host=[v2:198.18.0.1:3300]", "ls"}, env)),
            (std::vector<Mon>{{"198.18.0.1", {3300}}}));
}

TEST_F(CephMonitors, TheLastOneWinsAndCephArgsComeAfterTheCommandLine) {
  Named both = rbd_monitors(*tool_named("rbd"),
                            {"-m", "198.18.0.1", "--mon-host", "198.18.1.1", "map", "p/i"}, env);
  EXPECT_EQ(both.text, "198.18.1.1");
  EXPECT_EQ(both.where, "--mon-host");
  EXPECT_EQ(mons(both), (std::vector<Mon>{{"198.18.1.1", {3300, 6789}}}));
  Named back = rbd_monitors(*tool_named("rbd"),
                            {"--mon_host=198.18.1.1", "-m", "198.18.0.1", "map", "p/i"}, env);
  EXPECT_EQ(back.text, "198.18.0.1");
  EXPECT_EQ(back.where, "-m");
  EXPECT_EQ(
      rbd_monitors(*tool_named("rbd"), {"-m", "198.18.1.1", "-m", "198.18.0.1", "map"}, env).text,
      "198.18.0.1");

  env.ceph_args = "--id admin -m 198.18.1.1";
  Named from_env = rbd_monitors(*tool_named("rbd"), {"-m", "198.18.0.1", "map", "p/i"}, env);
  EXPECT_EQ(from_env.text, "198.18.1.1") << "CEPH_ARGS is parsed after argv";
  EXPECT_EQ(from_env.where, "CEPH_ARGS -m");
  env.ceph_args = "--mon_host=198.18.1.1";
  EXPECT_EQ(rbd_monitors(*tool_named("rbd"), {"map", "p/i"}, env).where, "CEPH_ARGS --mon_host");
  EXPECT_EQ(rbd_monitors(*tool_named("rbd"), {"map", "p/i"}, env).unknown, "");
  env.ceph_args = "  --id   admin ";
  EXPECT_EQ(rbd_monitors(*tool_named("rbd"), {"-m", "198.18.0.1", "map"}, env).text, "198.18.0.1")
      << "CEPH_ARGS without monitors changes nothing";
}

TEST_F(CephMonitors, WordsNoAllowListKnowsAreNotUnderstood) {
  const Tool& rbd = *tool_named("rbd");
  // rbd 16.2 rejects -mVALUE and an abbreviation ("unrecognised option"):
  // the shim does not guess what they would mean.
  EXPECT_EQ(rbd_monitors(rbd, {"-m198.18.0.1", "map"}, env).not_understood,
            "\"-m198.18.0.1\" (the command line)");
  EXPECT_TRUE(has(rbd_monitors(rbd, {"--mon-ho=198.18.1.1", "map"}, env).not_understood,
                  "--mon-ho=198.18.1.1"));
  EXPECT_TRUE(has(rbd_monitors(rbd, {"-m", "198.18.0.1", "--bogus", "map"}, env).not_understood,
                  "--bogus"));
  env.ceph_args = "--id admin --mon-host-overide 198.18.1.1";
  EXPECT_EQ(rbd_monitors(rbd, {"-m", "198.18.0.1", "map"}, env).not_understood,
            "\"--mon-host-overide\" (CEPH_ARGS)");
  env.ceph_args.reset();
  // What ceph-csi writes is all known, Ceph's options and rbd's alike.
  Named csi = rbd_monitors(
      rbd,
      {"--id", "admin", "-m", "198.18.0.1", "--keyfile=/k", "map", "p/i", "--device-type", "krbd",
       "--options", "noudev", "--options", "lock_on_read,queue_depth=1024", "--read-only"},
      env);
  EXPECT_EQ(csi.not_understood, "");
  EXPECT_EQ(csi.servers.size(), 1u);
  EXPECT_EQ(rbd_monitors(rbd, {"--debug-ms=1", "--log-to-stderr", "-m", "198.18.0.1", "ls"}, env)
                .not_understood,
            "");
  // nbd's -o keys become rbd-nbd's options: only the table's.
  EXPECT_EQ(rbd_monitors(rbd, {"-m", "198.18.0.1", "-t", "nbd", "-o", "try-netlink", "map"}, env)
                .not_understood,
            "");
  EXPECT_TRUE(has(
      rbd_monitors(rbd, {"-m", "198.18.0.1", "-t", "nbd", "-o", "mon_host=198.18.1.1", "map"}, env)
          .not_understood,
      "mon_host=198.18.1.1"));
  EXPECT_TRUE(has(rbd_monitors(rbd, {"-m", "198.18.0.1", "-t", "ubbd", "map"}, env).not_understood,
                  "ubbd"));
}

TEST_F(CephMonitors, MonitorsInCephsOrderMonmapOverrideMonHost) {
  const Tool& rbd = *tool_named("rbd");
  // -m UNHELD --mon-host-override HELD: Ceph connects to the override only.
  Named o =
      rbd_monitors(rbd, {"-m", "198.18.9.9", "--mon-host-override", "198.18.0.1", "map"}, env);
  EXPECT_EQ(mons(o), (std::vector<Mon>{{"198.18.0.1", {3300, 6789}}}));
  EXPECT_EQ(o.where, "--mon-host-override");
  env.ceph_args = "--mon_host_override=198.18.1.1";
  EXPECT_EQ(rbd_monitors(rbd, {"-m", "198.18.9.9", "map"}, env).where,
            "CEPH_ARGS --mon_host_override");
  env.ceph_args.reset();
  // In the config file, the override wins over -m on the command line.
  const std::string c =
      conf("o.conf", "[global]\nmon_host = 198.18.9.9\n[client]\nmon host override = 198.18.1.1\n");
  Named f = rbd_monitors(rbd, {"-c", c, "-m", "198.18.9.9", "map"}, env);
  EXPECT_EQ(mons(f), (std::vector<Mon>{{"198.18.1.1", {3300, 6789}}})) << f.unknown;
  EXPECT_EQ(f.where, "mon_host_override in " + c);
  // [client.ID] wins over [client] and [global].
  const std::string s = conf("s.conf",
                             "[global]\nmon_host = 198.18.9.9\n[client.csi]\nmon_host = "
                             "198.18.0.2\n[client.other]\nmon_host = 198.18.9.8\n");
  EXPECT_EQ(mons(rbd_monitors(rbd, {"-c", s, "--id", "csi", "map"}, env)),
            (std::vector<Mon>{{"198.18.0.2", {3300, 6789}}}));
  // A monmap file: the shim cannot read it.
  EXPECT_TRUE(
      has(rbd_monitors(rbd, {"-M", "/tmp/map", "-m", "198.18.0.1", "map"}, env).not_understood,
          "monmap"));
  // An unknown key in a section the client reads; other sections are not read.
  const std::string u = conf("u.conf",
                             "[global]\nmon_host = 198.18.0.1\nmon_hots = 198.18.9.9\n"
                             "[osd]\nosd_max_backfills = 3\n");
  EXPECT_EQ(rbd_monitors(rbd, {"-c", u, "map"}, env).not_understood,
            "\"mon_hots\" (" + u + " [global])");
}

TEST_F(CephMonitors, NoneNamedMeansTheConfigFile) {
  // No config file at all: what it connects to cannot be told.
  Named none = rbd_monitors(*tool_named("rbd"), {"map", "rbd/img"}, env);
  EXPECT_FALSE(none.named());
  EXPECT_TRUE(has(none.unknown, tmp / "missing.conf")) << none.unknown;
  EXPECT_TRUE(has(none.unknown, "CEPH_CONF")) << none.unknown;

  const std::string c = conf("c.conf",
                             "[global]\n"
                             "\tfsid = 4a1f\n"
                             "\tmon host = 198.18.0.1:6789, 198.18.0.2:6789   # the mons\n");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"-c", c, "map", "p/i"},
                                               {"--conf", c, "map"},
                                               {"--conf=" + c},
                                               {"-c", tmp / "nope.conf," + c, "map"}}) {
    Named n = rbd_monitors(*tool_named("rbd"), args, env);
    EXPECT_EQ(mons(n), (std::vector<Mon>{{"198.18.0.1", {6789}}, {"198.18.0.2", {6789}}}))
        << args.front() << " " << n.unknown;
    EXPECT_EQ(n.where, "mon_host in " + c);
    EXPECT_EQ(n.unknown, "");
  }
  // CEPH_CONF: that list only (never /etc/ceph/ceph.conf after it).
  env.ceph_conf = c;
  EXPECT_EQ(rbd_monitors(*tool_named("rbd"), {"map", "p/i"}, env).servers.size(), 2u);
  // -c wins over CEPH_CONF; -m over both.
  const std::string d = conf("d.conf", "[global]\nmon_host = 198.18.1.1\n");
  EXPECT_EQ(mons(rbd_monitors(*tool_named("rbd"), {"-c", d, "map"}, env)),
            (std::vector<Mon>{{"198.18.1.1", {3300, 6789}}}));
  Named m = rbd_monitors(*tool_named("rbd"), {"-c", d, "-m", "198.18.2.1", "map"}, env);
  EXPECT_EQ(mons(m), (std::vector<Mon>{{"198.18.2.1", {3300, 6789}}}));
  // CEPH_ARGS may name the config file too.
  env.ceph_conf.reset();
  env.ceph_args = "-c " + d;
  EXPECT_EQ(mons(rbd_monitors(*tool_named("rbd"), {"map"}, env)),
            (std::vector<Mon>{{"198.18.1.1", {3300, 6789}}}));
}

TEST_F(CephMonitors, TheDefaultSearchTakesTheClusterName) {
  env.ceph_conf.reset();
  ASSERT_EQ(::mkdir((tmp / ".ceph").c_str(), 0755), 0);
  conf(".ceph/other.conf", "[client]\nmon_host = 198.18.1.1\n");
  Named n = rbd_monitors(*tool_named("rbd"), {"--cluster", "other", "map", "p/i"}, env);
  EXPECT_EQ(mons(n), (std::vector<Mon>{{"198.18.1.1", {3300, 6789}}})) << n.unknown;
  EXPECT_EQ(n.where, "mon_host in " + tmp / ".ceph/other.conf");
}

TEST_F(CephMonitors, AConfigFileThatCannotTellIsUnknownNeverSkipped) {
  const std::string empty =
      conf("empty.conf", "[global]\nfsid = 4a1f\n[osd]\nmon_host = 1.2.3.4\n");
  Named n = rbd_monitors(*tool_named("rbd"), {"-c", empty, "map"}, env);
  EXPECT_FALSE(n.named());
  EXPECT_TRUE(has(n.unknown, "has no mon_host")) << n.unknown;
  // Anyone may have written it: not read (the same provenance rules as config.json).
  const std::string open = conf("open.conf", "[global]\nmon_host = 198.18.0.1\n", 0666);
  Named o = rbd_monitors(*tool_named("rbd"), {"-c", open, "map"}, env);
  EXPECT_FALSE(o.named());
  EXPECT_TRUE(has(o.unknown, "cannot be trusted or read")) << o.unknown;
  EXPECT_TRUE(has(o.unknown, open)) << o.unknown;
  // A word of mon_host that is no monitor address.
  const std::string bad = conf("bad.conf", "[global]\nmon_host = 198.18.0.1, host:port\n");
  Named b = rbd_monitors(*tool_named("rbd"), {"-c", bad, "map"}, env);
  EXPECT_EQ(b.servers.size(), 1u);
  EXPECT_TRUE(has(b.unknown, "host:port")) << b.unknown;
}

TEST_F(CephMonitors, CallsThatNameNoMonitors) {
  // `rbd --version`, `rbd help`, `rbd unmap /dev/rbd0`; a -m with nothing
  // after it; a monitor-looking word that is an image name; -m after "--".
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--version"},
                                               {"help", "map"},
                                               {"unmap", "/dev/rbd0", "--device-type", "krbd"},
                                               {"ls", "-m"},
                                               {"info", "198.18.0.1"},
                                               {"--", "-m", "198.18.0.1"}})
    EXPECT_FALSE(rbd_monitors(*tool_named("rbd"), args, env).named()) << args.front();
}

TEST(ShimConfigFile, MonHostAndMonAddrAsCephSpellsThem) {
  EXPECT_EQ(config_file_monitors("[global]\nmon host = 198.18.0.1, 198.18.0.2\n"),
            std::vector<std::string>{"198.18.0.1, 198.18.0.2"});
  EXPECT_EQ(config_file_monitors("[global]\n  mon_host=\"198.18.0.1\"  ; comment\n"),
            std::vector<std::string>{"198.18.0.1"});
  EXPECT_EQ(config_file_monitors("[ global ]\nMon-Host   =   v2:198.18.0.1:3300\n"),
            std::vector<std::string>{"v2:198.18.0.1:3300"});
  EXPECT_EQ(config_file_monitors("[client.admin]\nmon_host = 198.18.0.1\n"),
            std::vector<std::string>{"198.18.0.1"});
  EXPECT_EQ(config_file_monitors("[mon.a]\nmon addr = 198.18.0.1:6789\n[mon.b]\n\tmon_addr = "
                                 "198.18.0.2\n"),
            (std::vector<std::string>{"198.18.0.1:6789", "198.18.0.2"}));
  // Not the client's: another daemon's section, a commented line, another key.
  EXPECT_TRUE(config_file_monitors("[osd]\nmon_host = 198.18.0.1\n").empty());
  EXPECT_TRUE(config_file_monitors("[global]\n# mon_host = 198.18.0.1\n").empty());
  EXPECT_TRUE(config_file_monitors("[global]\nmon_host_override = 198.18.0.1\n").empty());
  EXPECT_TRUE(config_file_monitors("[global]\nmon_addr = 198.18.0.1\n").empty());
  EXPECT_TRUE(config_file_monitors("").empty());
}

TEST_F(CephMonitors, MountCephNamesThemInTheSourceOrTheOptions) {
  // What mount(8) gives the helper for ceph-csi's `mount -t ceph MONS:/ DIR -o ...`.
  Named old = mount_ceph_monitors(*tool_named("mount.ceph"),
                                  {"198.18.0.1:6789,198.18.0.2:6789:/volumes/csi", "/mnt/x", "-o",
                                   "name=admin,secretfile=/tmp/s,mds_namespace=fs"},
                                  env);
  EXPECT_EQ(old.text, "198.18.0.1:6789,198.18.0.2:6789");
  EXPECT_EQ(old.where, "the mount source");
  EXPECT_EQ(old.servers.size(), 2u);
  EXPECT_EQ(mons(mount_ceph_monitors(*tool_named("mount.ceph"), {"[::1]:6789:/", "/mnt/x"}, env)),
            (std::vector<Mon>{{"::1", {6789}}}));
  // The device syntax: NAME@FSID.FS=/PATH with mon_addr=M1/M2.
  Named dev = mount_ceph_monitors(
      *tool_named("mount.ceph"),
      {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "secretfile=/s,mon_addr=198.18.0.1:3300/198.18.0.2"},
      env);
  EXPECT_EQ(dev.where, "mon_addr= in -o");
  EXPECT_EQ(mons(dev), (std::vector<Mon>{{"198.18.0.1", {3300}}, {"198.18.0.2", {3300, 6789}}}));
  // mon_host= is no key of mount.ceph 16.2's or the kernel's: not understood.
  Named host = mount_ceph_monitors(
      *tool_named("mount.ceph"),
      {"admin@4a1f.cephfs=/", "/mnt/x", "-omon_host=198.18.0.1,198.18.0.2,name=admin"}, env);
  EXPECT_EQ(host.not_understood, "\"mon_host=198.18.0.1\" (-o)");
  // Only the last -o counts (mount.ceph 16.2 keeps that one).
  Named last = mount_ceph_monitors(
      *tool_named("mount.ceph"),
      {"198.18.0.1:/", "/m", "-o", "mon_addr=198.18.9.9", "-o", "name=admin"}, env);
  EXPECT_EQ(last.servers.size(), 1u);
  EXPECT_EQ(last.not_understood, "");
  // Both: all of them (a held cluster among them must not be missed).
  EXPECT_EQ(mount_ceph_monitors(*tool_named("mount.ceph"),
                                {"198.18.0.1:/", "/m", "-o", "mon_addr=198.18.0.7"}, env)
                .servers.size(),
            2u);
  // None: a source without MONS: and no config file; `mount.ceph -h`.
  Named none = mount_ceph_monitors(*tool_named("mount.ceph"),
                                   {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "name=admin"}, env);
  EXPECT_FALSE(none.named());
  EXPECT_FALSE(none.unknown.empty());
  EXPECT_FALSE(mount_ceph_monitors(*tool_named("mount.ceph"), {"-h"}, env).named());
}

TEST_F(CephMonitors, MountCephReadsTheConfigFileOfConfOption) {
  const std::string c = conf("fs.conf", "[global]\nmon_host = [v2:198.18.1.1:3300]\n");
  Named n =
      mount_ceph_monitors(*tool_named("mount.ceph"),
                          {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "name=admin,conf=" + c}, env);
  EXPECT_EQ(mons(n), (std::vector<Mon>{{"198.18.1.1", {3300}}})) << n.unknown;
  EXPECT_EQ(n.where, "mon_host in " + c);
  // CEPH_CONF too, when -o names none.
  env.ceph_conf = c;
  EXPECT_EQ(mount_ceph_monitors(*tool_named("mount.ceph"), {"admin@4a1f.cephfs=/", "/mnt/x"}, env)
                .servers.size(),
            1u);
  // Monitors in the source: the config file is not read.
  env.ceph_conf = tmp / "missing.conf";
  Named src = mount_ceph_monitors(*tool_named("mount.ceph"),
                                  {"198.18.0.1:/", "/mnt/x", "-o", "conf=" + c}, env);
  EXPECT_EQ(mons(src), (std::vector<Mon>{{"198.18.0.1", {3300, 6789}}}));
  EXPECT_EQ(src.unknown, "");
  // CEPH_ARGS, through global_init: its monitors when the source has none,
  // its override beside the source's.
  env.ceph_args = "-m 198.18.1.1";
  EXPECT_EQ(mount_ceph_monitors(*tool_named("mount.ceph"), {":/", "/mnt/x"}, env).where,
            "CEPH_ARGS -m");
  env.ceph_args = "--mon-host-override 198.18.1.1";
  EXPECT_EQ(mount_ceph_monitors(*tool_named("mount.ceph"), {"198.18.0.1:/", "/mnt/x"}, env)
                .servers.size(),
            2u);
  // The override in the conf= file, likewise.
  env.ceph_args.reset();
  const std::string o = conf("ov.conf", "[global]\nmon_host_override = 198.18.1.1\n");
  EXPECT_EQ(mount_ceph_monitors(*tool_named("mount.ceph"),
                                {"198.18.0.1:/", "/mnt/x", "-o", "name=admin,conf=" + o}, env)
                .servers.size(),
            2u);
}

}  // namespace
