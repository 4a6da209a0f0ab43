// Transparent mode's one decision (decide()): from argv[0], the arguments and
// the environment, the real program untouched, a held cluster's holder
// (which cluster, which file), or a refusal (125, nothing runs). It fails
// closed: a session-opening call whose cluster cannot be told is refused,
// unless the operator opted out; calls that open no session are never
// refused. The real program is a stand-in script; nothing here enters a
// namespace (the privileged shim_decision_table test runs the same rules
// through the shim itself).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>

#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/shim/decision.hpp"

namespace {

namespace ex = netns::exec;
using namespace netns::exec::shim;
using Args = std::vector<std::string>;

bool has(const std::string& text, std::string_view needle) {
  return text.find(needle) != std::string::npos;
}

struct ShimDecision : ::testing::Test {
  void SetUp() override {
    real = tmp.subdir("real");
    for (const char* name :
         {"rbd", "mount.ceph", "nvme", "mount.nfs", "mount.nfs4", "umount.nfs", "umount.nfs4"})
      netns::test::write_script(real + "/" + name, "exit 0");
    holders = tmp / "holders";
    env.config = write("config.json", R"([
      {"clusterID": "ceph-a", "monitors": ["198.18.0.1:6789", "198.18.0.2:6789"]},
      {"clusterID": "ceph-a-tenant", "monitors": ["198.18.0.1:6789"]},
      {"clusterID": "ceph-b", "monitors": ["[v2:198.18.1.1:3300,v1:198.18.1.1:6789]"],
       "rbd": {"netNamespaceFilePath": "/configured/ceph-b.net.ns"}},
      {"clusterID": "ceph-c", "monitors": ["198.18.2.1"]}
    ])");
    env.holder_dir = holders;
    env.path_list = real;
    // netns-exec's identity: anything but the stand-ins.
    env.self = identity_of("/proc/self/exe");
    ASSERT_TRUE(env.self);
    env.ceph.ceph_conf = tmp / "missing.conf";
    env.ceph.home = tmp.path();
  }
  std::string write(const std::string& name, const std::string& content) const {
    netns::UniqueFd d = netns::open_fd(tmp.path(), O_RDONLY | O_DIRECTORY);
    netns::write_file_atomic(d.get(), name, content, 0644, tmp.path());
    return tmp / name;
  }
  [[nodiscard]] Decision rbd(const Args& args) const { return decide("rbd", args, env); }
  static Args map(const std::string& mons) {
    return {"--id", "admin", "-m", mons, "--keyfile=/k", "map", "rbd/img", "--device-type", "krbd"};
  }
  static Args ls(const std::string& mons) { return {"--id", "admin", "-m", mons, "ls"}; }

  static void expect_holder(const Decision& d, const std::string& id, const std::string& path) {
    EXPECT_EQ(verdict_name(d.verdict), std::string("holder")) << d.why;
    EXPECT_EQ(d.cluster_id, id) << d.why;
    EXPECT_EQ(d.holder_path, path) << d.why;
    EXPECT_TRUE(d.source) << d.why;
    EXPECT_FALSE(d.refusal);
  }
  static void expect_untouched(const Decision& d) {
    EXPECT_EQ(verdict_name(d.verdict), std::string("untouched")) << d.why;
    EXPECT_FALSE(d.refusal);
    EXPECT_FALSE(d.opted_out);
  }
  // Refused naming each of `needles` in its message (what ran: nothing).
  static void expect_refused(const Decision& d, const std::vector<std::string>& needles) {
    ASSERT_EQ(verdict_name(d.verdict), std::string("refused")) << d.why;
    ASSERT_TRUE(d.refusal);
    const std::string text = d.refusal->describe();
    EXPECT_TRUE(has(text, "was not run")) << text;
    for (const auto& n : needles) EXPECT_TRUE(has(text, n)) << "missing " << n << " in " << text;
  }

  netns::test::TempDir tmp;
  std::string real, holders;
  Environment env;
};

TEST_F(ShimDecision, AHeldClustersCommandGoesToItsHolder) {
  Decision d = rbd(map("198.18.0.2"));
  expect_holder(d, "ceph-a", holders + "/ceph-a.net.ns");
  EXPECT_TRUE(d.opens_session);
  EXPECT_EQ(d.real.path, real + "/rbd");
  ASSERT_TRUE(d.source);
  EXPECT_EQ(d.source->kind, ex::Source::Kind::path);
  EXPECT_EQ(d.source->path, holders + "/ceph-a.net.ns");
  EXPECT_TRUE(d.also.empty());
  // Every Ceph spelling of the same monitors.
  for (const Args& args :
       {Args{"-m=198.18.0.2", "map", "p/i"}, Args{"--mon-host", "v1:198.18.0.2:6789", "map"},
        Args{"--mon_host=v1:198.18.0.2:6789", "map"},
        Args{"-m", "198.18.9.9", "-m", "198.18.0.1", "map"}})
    expect_holder(rbd(args), "ceph-a", holders + "/ceph-a.net.ns");
  // CEPH_ARGS's monitors win over the command line's.
  env.ceph.ceph_args = "-m 198.18.0.2";
  expect_holder(rbd(map("198.18.2.1")), "ceph-a", holders + "/ceph-a.net.ns");
}

TEST_F(ShimDecision, IdsSharingMonitorsAreOneClusterServedByTheFirstHeld) {
  // A radosNamespace: the same monitors under a second ID.
  Decision both = rbd(ls("198.18.0.1:6789"));
  expect_holder(both, "ceph-a", holders + "/ceph-a.net.ns");
  EXPECT_EQ(both.also, Args{"ceph-a-tenant"});
  env.held = "ceph-a-tenant";
  expect_holder(rbd(map("198.18.0.1:6789")), "ceph-a-tenant", holders + "/ceph-a-tenant.net.ns");
  // Its monitors with the other's: still one cluster, not ambiguous.
  expect_holder(rbd(map("198.18.0.1,198.18.0.2")), "ceph-a-tenant",
                holders + "/ceph-a-tenant.net.ns");
}

TEST_F(ShimDecision, TheConfigsNetNamespaceFilePathWins) {
  Decision d = rbd(map("v2:198.18.1.1:3300"));
  expect_holder(d, "ceph-b", "/configured/ceph-b.net.ns");
  ASSERT_TRUE(d.source);
  EXPECT_EQ(d.source->kind, ex::Source::Kind::cluster);
  // Only for its kind: mount.ceph reads cephFS, which has none.
  Decision fs = decide("mount.ceph", {"198.18.1.1:/", "/mnt", "-o", "name=admin"}, env);
  expect_holder(fs, "ceph-b", holders + "/ceph-b.net.ns");
}

TEST_F(ShimDecision, TheHoldersSocketWhenItPublishesOne) {
  ASSERT_EQ(::mkdir(holders.c_str(), 0755), 0);
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = holders + "/ceph-c.net.sock";
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  path.copy(addr.sun_path, path.size());
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  Decision d = rbd(map("198.18.2.1:3300"));
  ::close(s);
  expect_holder(d, "ceph-c", path);
}

TEST_F(ShimDecision, UnheldOrSessionlessCallsRunUntouched) {
  env.held = "ceph-b";
  Decision unheld = rbd(map("198.18.0.1"));
  expect_untouched(unheld);
  EXPECT_EQ(unheld.cluster_id, "ceph-a") << "explain says whose they are";
  EXPECT_FALSE(unheld.source);
  EXPECT_TRUE(has(unheld.why, "NETNS_EXEC_HELD_CLUSTERS")) << unheld.why;
  // Monitors no cluster has: a call that opens no session runs as is.
  Decision unknown = rbd(ls("198.18.9.9:6789"));
  expect_untouched(unknown);
  EXPECT_EQ(unknown.cluster_id, "");
  // Set and empty: nothing is held.
  env.held = "";
  expect_untouched(rbd(map("v2:198.18.1.1")));
  // No monitors, no session: the config is not even read.
  env.held.reset();
  env.config = tmp / "missing.json";
  for (const Args& args : {Args{"--version"}, Args{"help", "map"}, Args{"unmap", "/dev/rbd0"},
                           Args{"device", "list"}, Args{"showmapped"}, Args{"map", "--help"}}) {
    Decision d = rbd(args);
    expect_untouched(d);
    EXPECT_FALSE(d.opens_session) << args.front();
  }
}

TEST_F(ShimDecision, NoConfigAndNoHeldListIsNothingHeld) {
  env.config = tmp / "missing.json";
  expect_untouched(rbd(map("198.18.0.1")));
  // With the list set, the missing config is a refusal for a session.
  env.held = "ceph-a";
  expect_refused(rbd(map("198.18.0.1")), {tmp / "missing.json"});
  expect_untouched(rbd(ls("198.18.0.1")));
  // A config that is no JSON: the same.
  env.held.reset();
  env.config = write("bad.json", "{not json");
  expect_refused(decide("mount.ceph", {"198.18.0.1:/", "/mnt"}, env), {tmp / "bad.json"});
  expect_untouched(decide("mount.ceph", {"-V"}, env));
}

TEST_F(ShimDecision, ATypoInTheHeldListRefusesEverySessionWithADidYouMean) {
  for (const char* typo : {"Ceph-A", " ceph-a", "ceph-a ", "ceph-b,CEPH-A"}) {
    env.held = typo;
    Decision d = rbd(map("198.18.0.1"));
    expect_refused(d, {"NETNS_EXEC_HELD_CLUSTERS", "did you mean \"ceph-a\"?"});
    EXPECT_EQ(d.refusal->code(), netns::Errc::invalid_argument);
    // ceph-b's call is refused too: the list as a whole is wrong.
    expect_refused(rbd(map("198.18.1.1")), {"did you mean"});
    // No session: untouched.
    expect_untouched(rbd(ls("198.18.0.1")));
  }
  env.held = "ceph-z";
  expect_refused(rbd(map("198.18.0.1")), {"\"ceph-z\"", "\"ceph-a\", \"ceph-a-tenant\""});
  env.held = "ceph-a,../x";
  expect_refused(rbd(map("198.18.0.1")), {"\"../x\""});
  // Blank entries are no IDs.
  env.held = "ceph-a,,";
  expect_holder(rbd(map("198.18.0.1")), "ceph-a", holders + "/ceph-a.net.ns");
}

TEST_F(ShimDecision, UnmatchedMonitorsOfASessionAreRefusedUnlessTheOperatorOptsOut) {
  Decision d = rbd(map("198.18.9.9:6789"));
  expect_refused(d, {"198.18.9.9:6789", "NETNS_EXEC_UNMATCHED=own-netns"});
  EXPECT_EQ(d.refusal->code(), netns::Errc::not_found);
  env.unmatched = "refuse";
  expect_refused(rbd(map("198.18.9.9:6789")), {"198.18.9.9:6789"});
  env.unmatched = "own-netns";
  Decision own = rbd(map("198.18.9.9:6789"));
  EXPECT_EQ(verdict_name(own.verdict), std::string("untouched")) << own.why;
  EXPECT_TRUE(own.opted_out);
  EXPECT_TRUE(has(own.why, "NETNS_EXEC_UNMATCHED=own-netns")) << own.why;
  // The opt-out is for what cannot be matched, never for a held cluster.
  expect_holder(rbd(map("198.18.0.1")), "ceph-a", holders + "/ceph-a.net.ns");
  env.unmatched = "bogus";
  expect_refused(rbd(map("198.18.9.9:6789")), {"NETNS_EXEC_UNMATCHED", "\"bogus\""});
}

TEST_F(ShimDecision, NoMonitorsAndNoConfigFileIsRefusedForASession) {
  Decision d = rbd({"--id", "admin", "map", "rbd/img"});
  expect_refused(d, {tmp / "missing.conf"});
  // The config file names them: they are matched as any others.
  const std::string conf = write("ceph.conf", "[global]\nmon host = 198.18.0.2:6789\n");
  env.ceph.ceph_conf = conf;
  expect_holder(rbd({"map", "rbd/img"}), "ceph-a", holders + "/ceph-a.net.ns");
  env.ceph.ceph_conf = tmp / "missing.conf";
  expect_holder(rbd({"-c", conf, "map", "rbd/img"}), "ceph-a", holders + "/ceph-a.net.ns");
  // -mVALUE: rbd 16.2 rejects it, the shim does not understand it, even
  // with NETNS_EXEC_UNMATCHED=own-netns.
  expect_refused(rbd({"-c", conf, "-m198.18.0.1", "map"}), {"\"-m198.18.0.1\""});
  env.unmatched = "own-netns";
  expect_refused(rbd({"-m198.18.0.1", "map"}), {"does not understand"});
}

TEST_F(ShimDecision, MonitorsOfTwoClustersAreAmbiguous) {
  Decision d = rbd(map("198.18.0.1,198.18.1.1"));
  expect_refused(d, {"ambiguous", "\"ceph-a\"", "\"ceph-b\""});
  expect_untouched(rbd(ls("198.18.0.1,198.18.1.1")));
  // A held cluster's monitors beside some no cluster has: a session is
  // refused (which cluster would it open sessions to?); a call that opens
  // none still runs in the held cluster's holder.
  expect_refused(rbd(map("198.18.0.1,198.18.9.9")), {"198.18.9.9"});
  expect_holder(rbd(ls("198.18.0.1,198.18.9.9")), "ceph-a", holders + "/ceph-a.net.ns");
}

TEST_F(ShimDecision, ANonSessionCallNamingAHeldClusterIsServedFromItsHolder) {
  // `rbd -m HELD --version` opens no session, but names a held cluster: it
  // runs in the holder, as everything of that cluster does.
  Decision d = rbd({"-m", "198.18.0.1", "--version"});
  EXPECT_FALSE(d.opens_session);
  expect_holder(d, "ceph-a", holders + "/ceph-a.net.ns");
}

TEST_F(ShimDecision, MountCephFormsAndTheDefaultHolderDirectory) {
  env.holder_dir.reset();
  const std::string dir = "/var/lib/kubelet/plugins/cephfs.csi.ceph.com";
  expect_holder(decide("mount.ceph",
                       {"198.18.0.1:6789,198.18.0.2:6789:/volumes/csi", "/mnt/x", "-o",
                        "name=admin,secretfile=/s"},
                       env),
                "ceph-a", dir + "/ceph-a.net.ns");
  expect_holder(
      decide("mount.ceph",
             {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "mon_addr=198.18.0.1/198.18.0.2"}, env),
      "ceph-a", dir + "/ceph-a.net.ns");
  const std::string conf = write("fs.conf", "[global]\nmon_host = 198.18.0.2\n");
  expect_holder(decide("mount.ceph", {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "conf=" + conf}, env),
                "ceph-a", dir + "/ceph-a.net.ns");
  Decision r = rbd(map("198.18.0.1"));
  EXPECT_EQ(r.holder_dir, "/var/lib/kubelet/plugins/rbd.csi.ceph.com");
  expect_refused(decide("mount.ceph", {"admin@4a1f.cephfs=/", "/mnt/x"}, env),
                 {tmp / "missing.conf"});
}

TEST_F(ShimDecision, TargetsMostSpecificWinsAndTheSamePrefixTwiceIsAmbiguous) {
  env.targets = "gw-a=198.18.0.0/16;gw-b=198.18.4.0/24;d1=198.18.9.0/24;d2=198.18.9.0/24";
  auto nvme = [&](const std::string& a) {
    return decide("nvme", {"connect", "-t", "tcp", "-n", "nqn.x", "-a", a, "-s", "4420"}, env);
  };
  expect_holder(nvme("198.18.4.9"), "gw-b", holders + "/gw-b.net.ns");
  expect_holder(nvme("198.18.5.1"), "gw-a", holders + "/gw-a.net.ns");
  expect_holder(nvme("::ffff:198.18.4.9"), "gw-b", holders + "/gw-b.net.ns");
  expect_holder(nvme("[::ffff:198.18.4.9]"), "gw-b", holders + "/gw-b.net.ns");
  expect_holder(nvme("::ffff:198.18.4.9%eth0"), "gw-b", holders + "/gw-b.net.ns");
  // Both readings of a leading zero are gw-b's.
  expect_holder(nvme("198.18.4.020"), "gw-b", holders + "/gw-b.net.ns");
  expect_refused(nvme("198.18.9.1"), {"ambiguous", "\"d1\"", "\"d2\""});
  expect_refused(nvme("198.19.0.1"), {"198.19.0.1", "NETNS_EXEC_TARGETS"});
}

TEST_F(ShimDecision, ReadingsThatMatchDifferentlyAreRefused) {
  env.targets = "gw-a=198.18.4.20";
  // glibc reads 198.18.4.16, the kernel 198.18.4.20.
  expect_refused(decide("nvme", {"connect", "-a", "198.18.4.020"}, env),
                 {"198.18.4.16", "198.18.4.20"});
  expect_holder(decide("nvme", {"connect", "-a", "198.18.4.20"}, env), "gw-a",
                holders + "/gw-a.net.ns");
  // A name nobody declared beside the kernel's reading.
  expect_refused(decide("mount.nfs", {"198.018.4.20:/e", "/mnt"}, env), {"198.018.4.20"});
}

TEST_F(ShimDecision, NvmeAndNfsCallsThatOpenNoSessionAreUntouched) {
  env.targets = "gw-a=198.18.4.0/24";
  for (const Args& args : {Args{"disconnect", "-d", "/dev/nvme0"}, Args{"list-subsys"},
                           Args{"--version"}, Args{"connect", "--help"}})
    expect_untouched(decide("nvme", args, env));
  expect_untouched(decide("umount.nfs", {"/mnt/x", "-f"}, env));
  expect_untouched(decide("umount.nfs4", {"/mnt/x"}, env));
  expect_untouched(decide("mount.nfs", {"-V"}, env));
  // A connect that names no address takes it from a file: refused.
  expect_refused(decide("nvme", {"connect-all", "-t", "tcp"}, env), {"discovery.conf"});
  // Without a declaration nothing is held.
  env.targets.reset();
  expect_untouched(decide("nvme", {"connect-all", "-t", "tcp"}, env));
  expect_untouched(decide("mount.nfs", {"198.18.4.1:/e", "/mnt"}, env));
}

TEST_F(ShimDecision, NfsServersAsTheCommandNamesThem) {
  env.targets = "nfs-a=198.18.6.2,NFS.Example";
  const std::string path = holders + "/nfs-a.net.ns";
  expect_holder(decide("mount.nfs", {"198.18.6.2:/export", "/mnt", "-o", "vers=4.1"}, env), "nfs-a",
                path);
  expect_holder(decide("mount.nfs4", {"nfs.example.:/", "/mnt"}, env), "nfs-a", path);
  expect_holder(decide("mount.nfs", {"nfs.example:/e", "/mnt", "-o", "addr=198.18.6.2"}, env),
                "nfs-a", path);
  expect_refused(decide("mount.nfs", {"198.18.6.3:/e", "/mnt"}, env), {"198.18.6.3"});
  expect_refused(decide("mount.nfs", {"other.example:/e", "/mnt"}, env), {"other.example"});
  expect_refused(decide("mount.nfs", {"nfs.example:/e", "/mnt", "-o", "addr=198.18.6.3"}, env),
                 {"198.18.6.3"});
  // A name declared nowhere is never resolved to find one that is.
  env.unmatched = "own-netns";
  Decision own = decide("mount.nfs", {"other.example:/e", "/mnt"}, env);
  EXPECT_TRUE(own.opted_out);
}

TEST_F(ShimDecision, AMalformedDeclarationRefusesSessionsOnly) {
  env.targets = "gw-a=198.18.4.0/40";
  expect_refused(decide("nvme", {"connect", "-a", "198.18.4.1"}, env),
                 {"NETNS_EXEC_TARGETS", "198.18.4.0/40"});
  expect_refused(decide("mount.nfs", {"198.18.4.1:/e", "/mnt"}, env), {"NETNS_EXEC_TARGETS"});
  expect_untouched(decide("nvme", {"disconnect", "-d", "/dev/nvme0"}, env));
  expect_untouched(decide("nvme", {"list-subsys"}, env));
  expect_untouched(decide("umount.nfs", {"/mnt"}, env));
}

TEST_F(ShimDecision, WithoutTheRealProgramNothingRuns) {
  env.path_list = tmp.subdir("empty");
  expect_refused(rbd({"--version"}), {"\"rbd\"", "PATH"});
  expect_refused(decide("umount.nfs", {"/mnt"}, env), {"umount.nfs"});
  // netns-exec itself is never its own real program.
  env.path_list = real;
  env.self = identity_of(real + "/rbd");
  expect_refused(rbd({"--version"}), {"\"rbd\""});
  expect_refused(decide("nsenter", {"--version"}, env), {"nsenter"});
}

TEST_F(ShimDecision, TheCheckOptInsAreReadStrictly) {
  env.identity = "off";
  expect_refused(rbd(map("198.18.0.1")), {"NETNS_EXEC_IDENTITY"});
  env.identity = "if-present";
  env.wait_holder = "2s";
  Decision d = rbd(map("198.18.0.1"));
  expect_holder(d, "ceph-a", holders + "/ceph-a.net.ns");
  EXPECT_EQ(d.options.identity, ex::IdentityPolicy::if_present);
  EXPECT_TRUE(d.options.wait_holder == std::chrono::seconds(2));
  env.wait_holder = "soon";
  expect_refused(rbd(map("198.18.0.1")), {"NETNS_EXEC_WAIT_HOLDER"});
}

TEST(ShimEnvironment, FromTheProcess) {
  ::setenv("NETNS_EXEC_HELD_CLUSTERS", "ceph-a,,ceph-b", 1);
  ::unsetenv("NETNS_EXEC_HOLDER_DIR");
  ::setenv("NETNS_EXEC_CONFIG", "/x/config.json", 1);
  ::setenv("NETNS_EXEC_REAL_PATH", "/real", 1);
  ::setenv("CEPH_ARGS", "-m 198.18.0.1", 1);
  ::unsetenv("CEPH_CONF");
  Environment e = Environment::from_process();
  EXPECT_EQ(e.held, "ceph-a,,ceph-b");
  EXPECT_FALSE(e.holder_dir);
  EXPECT_TRUE(e.transparent());
  EXPECT_EQ(e.config, "/x/config.json");
  EXPECT_EQ(e.path_list, "/real") << "NETNS_EXEC_REAL_PATH before PATH";
  EXPECT_EQ(e.ceph.ceph_args, "-m 198.18.0.1");
  EXPECT_FALSE(e.ceph.ceph_conf);
  EXPECT_TRUE(e.self);
  ::unsetenv("NETNS_EXEC_HELD_CLUSTERS");
  ::unsetenv("NETNS_EXEC_CONFIG");
  ::unsetenv("NETNS_EXEC_REAL_PATH");
  ::unsetenv("CEPH_ARGS");
  Environment none = Environment::from_process();
  EXPECT_FALSE(none.held);
  EXPECT_FALSE(none.transparent());
  EXPECT_EQ(none.config, ex::kDefaultCephCsiConfig);
}

}  // namespace
