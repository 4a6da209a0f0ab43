// Transparent mode: the real program behind a shim is the next one of its
// name on PATH after the shim's own directory, never netns-exec itself,
// with directories and programs compared by identity (a /sbin -> /usr/sbin
// symlink, a second link to the shim elsewhere on PATH).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>

#include "netns/test/support.hpp"
#include "netns_exec/shim/real_program.hpp"

namespace {

using namespace netns::exec::shim;

struct ShimRealProgram : ::testing::Test {
  void SetUp() override {
    for (const char* d : {"shim", "real", "later", "other"})
      ASSERT_EQ(::mkdir((tmp / d).c_str(), 0755), 0);
    self_path = tmp / "netns-exec";
    program(self_path);
    self = *identity_of(self_path);
    ASSERT_EQ(::symlink(self_path.c_str(), (tmp / "shim/rbd").c_str()), 0);
    program(tmp / "real/rbd");
    program(tmp / "later/rbd");
    // sbin -> shim, the merged-/usr layout's /sbin -> /usr/sbin
    ASSERT_EQ(::symlink((tmp / "shim").c_str(), (tmp / "sbin").c_str()), 0);
  }
  static void program(const std::string& path) {
    std::ofstream(path) << "#!/bin/sh\n";
    ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
  }
  std::string path_of(std::initializer_list<const char*> dirs) const {
    std::string p;
    for (const char* d : dirs)
      p += (p.empty() ? "" : ":") + (d[0] == '/' ? std::string(d) : tmp / d);
    return p;
  }
  netns::test::TempDir tmp;
  std::string self_path;
  FileIdentity self;
};

TEST_F(ShimRealProgram, TakesTheNextOneAfterTheShimsDirectory) {
  // Found by name: the shim's directory is the PATH entry whose rbd is us.
  auto r = find_real_program("rbd", "rbd", path_of({"other", "shim", "real", "later"}), self);
  EXPECT_EQ(r.path, tmp / "real/rbd");
  // An rbd before the shim's directory is not the shim's real program.
  r = find_real_program("rbd", "rbd", path_of({"later", "shim", "real"}), self);
  EXPECT_EQ(r.path, tmp / "real/rbd");
  // By path (mount(8) runs /sbin/mount.ceph): argv[0]'s directory, compared
  // by identity: sbin is the shim directory under another name.
  r = find_real_program("rbd", tmp / "sbin/rbd", path_of({"shim", "real"}), self);
  EXPECT_EQ(r.path, tmp / "real/rbd");
  r = find_real_program("rbd", tmp / "shim/rbd", path_of({"later", "sbin", "real"}), self);
  EXPECT_EQ(r.path, tmp / "real/rbd");
}

TEST_F(ShimRealProgram, NeverItself) {
  // Another link to netns-exec after the shim (a hard link, a symlink) is skipped.
  ASSERT_EQ(::link(self_path.c_str(), (tmp / "other/rbd").c_str()), 0);
  auto r = find_real_program("rbd", "rbd", path_of({"shim", "other", "later"}), self);
  EXPECT_EQ(r.path, tmp / "later/rbd");
  bool said = false;
  for (const auto& why : r.reasons) said |= why.find("netns-exec itself") != std::string::npos;
  EXPECT_TRUE(said) << "explain says why other/rbd was skipped";
  // Only links to us: none found.
  r = find_real_program("rbd", "rbd", path_of({"shim", "other", "sbin"}), self);
  EXPECT_FALSE(r.found());
  EXPECT_FALSE(r.reasons.empty());
}

TEST_F(ShimRealProgram, TheShimsDirectoryOffPathMeansAllOfPath) {
  // mount(8) runs helpers from its own list; PATH need not hold that directory.
  auto r = find_real_program("rbd", tmp / "shim/rbd", path_of({"later", "real"}), self);
  EXPECT_EQ(r.path, tmp / "later/rbd");
}

TEST_F(ShimRealProgram, SkipsWhatIsNotAProgramAndNeverTheCurrentDirectory) {
  ASSERT_EQ(::mkdir((tmp / "other/rbd").c_str(), 0755), 0);  // a directory
  ASSERT_EQ(::chmod((tmp / "real/rbd").c_str(), 0644), 0);   // not executable
  auto r = find_real_program("rbd", "rbd", path_of({"shim", "other", "real", "later"}), self);
  EXPECT_EQ(r.path, tmp / "later/rbd");
  // Empty and relative entries are the current directory: never searched.
  ASSERT_EQ(::chdir((tmp / "real").c_str()), 0);
  ASSERT_EQ(::chmod((tmp / "real/rbd").c_str(), 0755), 0);
  r = find_real_program("rbd", "rbd", path_of({"shim"}) + "::.:real", self);
  EXPECT_FALSE(r.found()) << r.path;
  ASSERT_EQ(::chdir("/"), 0);
}

}  // namespace

// Copies of netns-exec (plain copies, not links: other identities) where the
// real program should be. The shim in sbin, off PATH as mount(8)'s helpers
// are, searches all of PATH: x/rbd is not itself, so it is taken; x's copy,
// invoked by that path's argv[0], would take y/rbd, which would take x/rbd
// again, for ever. The mark the shim leaves for the program it execs stops
// the first copy: 125, naming it, and the real rbd in z never runs.
TEST(ShimExecLoop, ACopyOfNetnsExecTakenForTheRealProgramRefuses) {
  netns::test::TempDir tmp;
  for (const char* d : {"sbin", "x", "y", "z"}) ASSERT_EQ(::mkdir((tmp / d).c_str(), 0755), 0);
  for (const char* copy : {"sbin/rbd", "x/rbd", "y/rbd"}) {
    auto r = netns::test::run_command({"cp", NETNS_EXEC_BIN, tmp / copy});
    ASSERT_TRUE(r.ok()) << r.err;
  }
  std::ofstream(tmp / "z/rbd") << "#!/bin/sh\necho real rbd ran >" << (tmp / "ran") << "\n";
  ASSERT_EQ(::chmod((tmp / "z/rbd").c_str(), 0755), 0);
  netns::test::RunOptions options;
  options.timeout = std::chrono::seconds(20);
  options.env =
      std::map<std::string, std::string>{{"PATH", tmp / "x" + ":" + tmp / "y" + ":" + tmp / "z"}};
  auto r = netns::test::run_command({tmp / "sbin/rbd", "--version"}, options);
  ASSERT_FALSE(r.timed_out) << "the copies exec'd each other until the timeout";
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("copy of netns-exec"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(tmp / "x/rbd"), std::string::npos) << r.err;
  EXPECT_NE(::access((tmp / "ran").c_str(), F_OK), 0) << "the real rbd ran";

  // Control: links, not copies, are netns-exec itself and are skipped: the
  // real rbd runs, and the mark does not stop it.
  for (const char* copy : {"x/rbd", "y/rbd"}) {
    ASSERT_EQ(::unlink((tmp / copy).c_str()), 0);
    ASSERT_EQ(::link((tmp / "sbin/rbd").c_str(), (tmp / copy).c_str()), 0);
  }
  r = netns::test::run_command({tmp / "sbin/rbd", "--version"}, options);
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_EQ(::access((tmp / "ran").c_str(), F_OK), 0) << "the real rbd did not run";
}

// Legitimate nesting: a real program that runs another shimmed tool (mount(8)
// running /sbin/mount.ceph, itself the shim) is not a loop, even when both
// shims are plain copies: the mark names one tool and one file.
TEST(ShimExecLoop, ARealProgramRunningAnotherShimmedToolIsNoLoop) {
  netns::test::TempDir tmp;
  for (const char* d : {"shim", "real"}) ASSERT_EQ(::mkdir((tmp / d).c_str(), 0755), 0);
  for (const char* copy : {"shim/nvme", "shim/rbd"}) {
    auto r = netns::test::run_command({"cp", NETNS_EXEC_BIN, tmp / copy});
    ASSERT_TRUE(r.ok()) << r.err;
  }
  std::ofstream(tmp / "real/nvme") << "#!/bin/sh\nexec " << (tmp / "shim/rbd") << " --version\n";
  std::ofstream(tmp / "real/rbd") << "#!/bin/sh\necho real rbd ran >" << (tmp / "ran") << "\n";
  for (const char* real : {"real/nvme", "real/rbd"})
    ASSERT_EQ(::chmod((tmp / real).c_str(), 0755), 0);
  netns::test::RunOptions options;
  options.timeout = std::chrono::seconds(20);
  options.env = std::map<std::string, std::string>{{"PATH", tmp / "shim" + ":" + tmp / "real"}};
  auto r = netns::test::run_command({tmp / "shim/nvme", "version"}, options);
  ASSERT_FALSE(r.timed_out);
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_EQ(::access((tmp / "ran").c_str(), F_OK), 0) << "the real rbd did not run: " << r.err;
  // Control: the real nvme running a copy of the shim as nvme itself is a
  // loop (that copy takes shim/nvme for the real nvme, which refuses).
  ASSERT_EQ(::unlink((tmp / "ran").c_str()), 0);
  ASSERT_EQ(::mkdir((tmp / "other").c_str(), 0755), 0);
  ASSERT_TRUE(netns::test::run_command({"cp", NETNS_EXEC_BIN, tmp / "other/nvme"}).ok());
  std::ofstream(tmp / "real/nvme") << "#!/bin/sh\nexec " << (tmp / "other/nvme") << " version\n";
  r = netns::test::run_command({tmp / "shim/nvme", "version"}, options);
  ASSERT_FALSE(r.timed_out) << "the copies exec'd each other until the timeout";
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("copy of netns-exec"), std::string::npos) << r.err;
}

// The promise as README and netns-exec(1) make it: a refusal is 125 with a
// "netns-exec: error:" line; the real program's own 125 reaches the caller
// as 125 (exec in place keeps its status) with no such line.
TEST(ShimExitStatus, TheRealProgramsOwn125IsToldApartByTheErrorLine) {
  netns::test::TempDir tmp;
  for (const char* d : {"shim", "real"}) ASSERT_EQ(::mkdir((tmp / d).c_str(), 0755), 0);
  ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (tmp / "shim/rbd").c_str()), 0);
  std::ofstream(tmp / "real/rbd") << "#!/bin/sh\necho 'rbd: its own failure' >&2\nexit 125\n";
  ASSERT_EQ(::chmod((tmp / "real/rbd").c_str(), 0755), 0);
  netns::test::RunOptions options;
  options.env = std::map<std::string, std::string>{{"PATH", tmp / "shim" + ":" + tmp / "real"}};
  auto ran = netns::test::run_command({tmp / "shim/rbd", "--version"}, options);
  EXPECT_EQ(ran.exit_code, 125) << ran.err;
  EXPECT_NE(ran.err.find("rbd: its own failure"), std::string::npos) << ran.err;
  EXPECT_EQ(ran.err.find("netns-exec: error:"), std::string::npos) << ran.err;
  // A refusal: the real rbd is not on PATH after the shim.
  options.env = std::map<std::string, std::string>{{"PATH", tmp / "shim"}};
  auto refused = netns::test::run_command({tmp / "shim/rbd", "--version"}, options);
  EXPECT_EQ(refused.exit_code, 125) << refused.err;
  EXPECT_EQ(refused.err.rfind("netns-exec: error:", 0), 0u) << refused.err;
}

// explain and doctor see the installation: which file a call of rbd really
// runs (the first on PATH), and a FAIL when it is not netns-exec.
TEST(ShimInstallation, ExplainAndDoctorSayWhetherTheShimIsWhatRuns) {
  netns::test::TempDir tmp;
  for (const char* d : {"shim", "real"}) ASSERT_EQ(::mkdir((tmp / d).c_str(), 0755), 0);
  ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (tmp / "shim/rbd").c_str()), 0);
  ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (tmp / "shim/netns-exec").c_str()), 0);
  std::ofstream(tmp / "real/rbd") << "#!/bin/sh\nexit 0\n";
  ASSERT_EQ(::chmod((tmp / "real/rbd").c_str(), 0755), 0);
  std::ofstream(tmp / "config.json") << R"([{"clusterID": "c1", "monitors": ["198.18.0.1:6789"]}])";
  auto run = [&](const std::string& path, std::vector<std::string> argv) {
    netns::test::RunOptions options;
    options.env = std::map<std::string, std::string>{{"PATH", path},
                                                     {"NETNS_EXEC_HOLDER_DIR", tmp / "holders"}};
    argv.insert(argv.begin(), NETNS_EXEC_BIN);
    return netns::test::run_command(argv, options);
  };
  const std::string shim_first = tmp / "shim" + ":" + tmp / "real";
  const std::string real_first = tmp / "real" + ":" + tmp / "shim";
  auto explain = run(shim_first, {"shim", "explain", "--json", "--", "rbd", "map", "x"});
  EXPECT_NE(explain.out.find("\"is_netns_exec\": true"), std::string::npos) << explain.out;
  explain = run(real_first, {"shim", "explain", "--", "rbd", "map", "x"});
  EXPECT_NE(explain.out.find("runs:      " + tmp / "real/rbd" + " (the first \"rbd\" on PATH): " +
                             "not netns-exec, so the shim is not what runs"),
            std::string::npos)
      << explain.out;
  // mount(8)'s helper search finds this machine's real /sbin/mount.ceph: the
  // shim is not what runs, and that file is never taken for netns-exec itself.
  if (auto real = netns::test::run_command({"cmp", "-s", "/sbin/mount.ceph", NETNS_EXEC_BIN});
      ::access("/sbin/mount.ceph", X_OK) == 0 && real.exit_code == 1) {
    explain =
        run(shim_first, {"shim", "explain", "--", "mount.ceph", "198.18.0.1:6789:/", "/mnt/x"});
    EXPECT_NE(explain.out.find("runs:      /sbin/mount.ceph (mount(8)'s helper search"),
              std::string::npos)
        << explain.out;
    EXPECT_NE(explain.out.find("not netns-exec, so the shim is not what runs"), std::string::npos)
        << explain.out;
  }
  const std::vector<std::string> doctor = {"doctor", "--cluster-id", "c1", "--config",
                                           tmp / "config.json"};
  auto ok = run(shim_first, doctor);
  EXPECT_NE(ok.out.find("PASS  shim rbd"), std::string::npos) << ok.out;
  auto bad = run(real_first, doctor);
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.out.find("FAIL  shim rbd"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find(tmp / "real/rbd" + "\" (the first \"rbd\" on PATH) is not netns-exec"),
            std::string::npos)
      << bad.out;
}
