// netns-exec installed as `nsenter` is util-linux nsenter for every call
// that is not a network-namespace entry by file, and for the ones that are,
// it fails the way nsenter fails: each case side by side with util-linux
// nsenter, byte for byte (stdout, stderr, status).
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "exec_fixture.hpp"

namespace netns::test::exec {
namespace {

const char* const kNsenter = "/usr/bin/nsenter";

struct NsenterDropIn : HeldExecFixture {
  void SetUp() override {
    HeldExecFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(::access(kNsenter, X_OK), 0) << "util-linux nsenter is needed for the comparison";
    // The plugin image's layout: the drop-in first on PATH, util-linux after it.
    bin = tmp.subdir("bin");
    ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (bin + "/nsenter").c_str()), 0);
    env = std::map<std::string, std::string>{{"PATH", bin + ":/usr/sbin:/usr/bin:/sbin:/bin"},
                                             {"SHELL", "/bin/sh"}};
  }

  // `nsenter ARGS` as a shell runs it (argv[0] "nsenter", found on PATH):
  // with the drop-in first on PATH, and with util-linux's only.
  [[nodiscard]] RunResult ours(const std::vector<std::string>& args,
                               RunOptions options = {}) const {
    return via_path(env.at("PATH"), args, std::move(options));
  }
  [[nodiscard]] RunResult theirs(const std::vector<std::string>& args,
                                 RunOptions options = {}) const {
    return via_path("/usr/sbin:/usr/bin:/sbin:/bin", args, std::move(options));
  }
  [[nodiscard]] RunResult via_path(const std::string& path, const std::vector<std::string>& args,
                                   RunOptions options) const {
    std::vector<std::string> argv{"/bin/sh", "-c", "exec nsenter \"$@\"", "sh"};
    argv.insert(argv.end(), args.begin(), args.end());
    if (!options.env) options.env = env;
    (*options.env)["PATH"] = path;
    return run_command(argv, options);
  }
  static void expect_same(const RunResult& mine, const RunResult& real, const std::string& what) {
    EXPECT_EQ(mine.exit_code, real.exit_code)
        << what << "\nours: " << mine.describe() << "\nnsenter: " << real.describe();
    EXPECT_EQ(mine.signaled, real.signaled) << what;
    EXPECT_EQ(mine.out, real.out) << what;
    EXPECT_EQ(mine.err, real.err) << what;
  }
  [[nodiscard]] std::string ns_line() const {
    return "net:[" + std::to_string(ns->ns_id().ino) + "]\n";
  }

  std::string bin;
  std::map<std::string, std::string> env;
};

// Every form that is not a network entry by file is util-linux's, untouched.
TEST_F(NsenterDropIn, EveryOtherCallIsUtilLinuxs) {
  const std::string pid = std::to_string(ns->pid());
  const std::vector<std::vector<std::string>> calls{
      {"--version"},
      {"-V"},
      {"-h"},
      {"--help"},
      {},  // no arguments: util-linux runs $SHELL (stdin is empty: it exits 0)
      {"--bogus"},
      {"-t", pid, "-n", "--", "readlink", "/proc/self/ns/net"},
      {"-t", pid, "-n", "readlink", "/proc/self/ns/net"},  // -n's detached word is the command here
      {"--target", pid, "--net", "--preserve-credentials", "readlink", "/proc/self/ns/net"},
      {"-t", pid, "-m", "--", "true"},
      {"-F", "-t", pid, "-u", "--", "hostname"},
      {"-t", "999999999", "-n", "true"},
      {"--net=", "true"},
  };
  for (const auto& call : calls) {
    std::string what = "nsenter";
    for (const auto& a : call) what += " " + a;
    expect_same(ours(call), theirs(call), what);
  }
  // The control: with the target, util-linux (through the drop-in) entered it.
  auto entered = ours({"-t", pid, "-n", "readlink", "/proc/self/ns/net"});
  EXPECT_EQ(entered.out, ns_line()) << entered.describe();
}

// --net=PATH, -nPATH, --net PATH and -n PATH: the same entry.
TEST_F(NsenterDropIn, EveryWayToNameTheFileWorks) {
  auto real = theirs({"--net=" + link, "--", "readlink", "/proc/self/ns/net"});
  ASSERT_TRUE(real.ok()) << real.describe();
  ASSERT_EQ(real.out, ns_line());
  for (const std::vector<std::string>& form :
       {std::vector<std::string>{"--net=" + link}, {"-n" + link}, {"--net", link}, {"-n", link}}) {
    for (bool dashdash : {true, false}) {
      std::vector<std::string> args = form;
      if (dashdash) args.emplace_back("--");
      args.insert(args.end(), {"readlink", "/proc/self/ns/net"});
      auto mine = ours(args);
      expect_same(mine, real, form.front() + (dashdash ? " --" : ""));
      // As netns-exec, not only as nsenter.
      args.insert(args.begin(), NETNS_EXEC_BIN);
      auto direct = run_command(args);
      EXPECT_TRUE(direct.ok()) << direct.describe();
      EXPECT_EQ(direct.out, ns_line()) << form.front();
    }
  }
}

// A failed exec: 127 for ENOENT only, 126 for the rest, with nsenter's line.
TEST_F(NsenterDropIn, AFailedExecHasNsentersStatusAndMessage) {
  ASSERT_EQ(::symlink("loop", (tmp / "loop").c_str()), 0);
  ASSERT_EQ(::mkdir((tmp / "dir").c_str(), 0755), 0);
  const std::string long_name = tmp / std::string(300, 'x');
  const std::vector<std::pair<std::string, int>> commands{
      {"/etc/passwd/", 126},  // ENOTDIR
      {tmp / "loop", 126},    // ELOOP
      {long_name, 126},       // ENAMETOOLONG
      {"/etc/passwd", 126},   // EACCES
      {tmp / "dir", 126},     // EACCES (a directory)
      {tmp / "none", 127},    // ENOENT
      {"no-such-command-x", 127},
  };
  for (const auto& [cmd, status] : commands) {
    auto real = theirs({"--net=" + link, "--", cmd});
    auto mine = ours({"--net=" + link, "--", cmd});
    EXPECT_EQ(real.exit_code, status) << cmd << ": " << real.describe();
    expect_same(mine, real, cmd.substr(0, 60));
  }
}

// The form needs no more free descriptors than nsenter where the limit can
// be raised for the checks: with one free slot (`ulimit -n 4` with 0, 1 and
// 2 open, or a nearly full table) at a soft limit below the hard one, and
// at a hard limit of 4 with CAP_SYS_RESOURCE, which a privileged plugin has
// (that case runs only where this test has it). The command gets the
// caller's limits back.
bool has_cap_sys_resource() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> 24) & 1;
  return false;
}

TEST_F(NsenterDropIn, RunsWithNoMoreFreeDescriptorsThanNsenter) {
  struct Case {
    rlim_t soft, hard;
  };
  std::vector<Case> cases{{4, 4096}, {6, 4096}, {64, 4096}};
  if (has_cap_sys_resource()) cases.push_back({4, 4});
  for (const Case c : cases) {
    RunOptions tight;
    tight.env = env;
    tight.child_setup = [c] {
      ::close_range(3, ~0U, 0);  // whatever ctest handed down would take a slot
      rlimit r{c.soft, c.hard};
      ::setrlimit(RLIMIT_NOFILE, &r);
      // Fill the table but for one slot, the one util-linux nsenter opens
      // the file in (sh execs nsenter, so the table is the same).
      for (int fd = 3; fd < static_cast<int>(c.soft) - 1; ++fd) ::dup2(2, fd);
    };
    const std::vector<std::string> cmd{"--net=" + link, "--", "sh", "-c",
                                       "readlink /proc/self/ns/net; ulimit -n; ulimit -Hn"};
    const std::string what =
        "limit " + std::to_string(c.soft) + ":" + std::to_string(c.hard) + ", one free";
    auto real = theirs(cmd, tight);
    auto mine = ours(cmd, tight);
    ASSERT_TRUE(real.ok()) << "the control: nsenter runs at " << what << ": " << real.describe();
    expect_same(mine, real, what);
    EXPECT_EQ(mine.out, ns_line() + std::to_string(c.soft) + "\n" + std::to_string(c.hard) + "\n");
  }
}

// With the hard limit at the soft one and no CAP_SYS_RESOURCE the limit
// cannot be raised, and the checks need three free descriptors at once
// (nsenter_mode.cpp says which and why none can go): `ulimit -n 6` with
// 0, 1 and 2 open runs, as util-linux nsenter does.
void drop_to_hard_limit(rlim_t limit) {
  // The arrangement: a shell with only 0, 1 and 2 open. Whatever
  // this process inherited (ctest hands its children an open descriptor)
  // would take one of the free slots.
  ::close_range(3, ~0U, 0);
  rlimit r{limit, limit};
  ::setrlimit(RLIMIT_NOFILE, &r);
  // Out of the bounding set: neither sh nor what it execs has it.
  ::prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0);
}

// Under UBSan every virtual call is a vptr check that tests the memory it
// reads through a pipe, which a full descriptor table cannot give it: it then
// reports a false "invalid vptr" and exits 1 (at 6:6 on the link's path, where
// resolve() calls the record check's sink with every descriptor in use; below
// six on the refusal's exception). The plain build runs these tests.
constexpr const char* kSanitizerNeedsDescriptors =
    "under a sanitizer the runtime needs descriptors of its own (UBSan's vptr check opens a pipe), "
    "so a table with no free slot is not the situation under test";

TEST_F(NsenterDropIn, RunsUnderAHardLimitOfSixWithoutCapSysResource) {
  if (under_sanitizer()) GTEST_SKIP() << kSanitizerNeedsDescriptors;
  RunOptions tight;
  tight.env = env;
  tight.child_setup = [] { drop_to_hard_limit(6); };
  const std::vector<std::string> cmd{
      "--net=" + link, "--", "sh", "-c",
      "readlink /proc/self/ns/net; ulimit -n; ulimit -Hn; "
      "ulimit -Hn 7 2>/dev/null && echo raised || echo cannot-raise"};
  auto real = theirs(cmd, tight);
  ASSERT_TRUE(real.ok()) << "the control: nsenter runs at 6:6: " << real.describe();
  ASSERT_EQ(real.out, ns_line() + "6\n6\ncannot-raise\n") << "the arrangement: no CAP_SYS_RESOURCE";
  auto mine = ours(cmd, tight);
  expect_same(mine, real, "limit 6:6 without CAP_SYS_RESOURCE");
}

// A holder's socket needs no more than its link (the directory, the
// connection and the sender's pidfd are closed before the namespace's own
// checks): a real netns-holder in socket mode, at 6:6 without
// CAP_SYS_RESOURCE, and its control one descriptor short, refused as such.
TEST_F(NsenterDropIn, AHoldersSocketRunsUnderAHardLimitOfSixToo) {
  TempDir dir;
  const std::string sock = dir / "ceph-s.net.sock";
  Process holder({"unshare", "--net", "--", NETNS_HOLDER_BIN, "--cluster-id", "ceph-s", "--dir",
                  dir.path(), "--socket"});
  wait_until([&] { return ::access(sock.c_str(), F_OK) == 0 || !holder.running(); }, 10s);
  ASSERT_EQ(::access(sock.c_str(), F_OK), 0) << holder.err();
  const std::string holder_ns =
      "net:[" +
      std::to_string(ns_id_of_path("/proc/" + std::to_string(holder.pid()) + "/ns/net").ino) +
      "]\n";
  for (rlim_t limit : {rlim_t{6}, rlim_t{5}}) {
    RunOptions tight;
    tight.env = env;
    tight.child_setup = [limit] { drop_to_hard_limit(limit); };
    auto mine = ours(
        {"--net=" + sock, "--", "sh", "-c", "readlink /proc/self/ns/net; touch " + marker}, tight);
    if (limit == 6) {
      EXPECT_TRUE(mine.ok()) << mine.describe();
      EXPECT_EQ(mine.out, holder_ns);
      EXPECT_TRUE(marker_exists());
      ::unlink(marker.c_str());
    } else if (!under_sanitizer()) {  // (kSanitizerNeedsDescriptors)
      expect_refused(mine,
                     {"RLIMIT_NOFILE", "soft 5, hard 5", "raise the hard limit to at least 6"});
    }
  }
  holder.kill(SIGTERM);
  (void)holder.wait(10s);
}

// Below that (hard 4 or 5, one or two free, no CAP_SYS_RESOURCE) util-linux
// nsenter still runs; the drop-in refuses with 125 before anything runs,
// naming the limit, how many are open, what the checks need and what to
// raise, not with a bare EMFILE.
TEST_F(NsenterDropIn, RefusesNamingTheLimitUnderAHardLimitBelowSix) {
  if (under_sanitizer()) GTEST_SKIP() << kSanitizerNeedsDescriptors;
  for (rlim_t limit : {rlim_t{4}, rlim_t{5}}) {
    RunOptions tight;
    tight.env = env;
    tight.child_setup = [limit] { drop_to_hard_limit(limit); };
    const std::string what = "limit " + std::to_string(limit) + ":" + std::to_string(limit);
    auto real = theirs({"--net=" + link, "--", "readlink", "/proc/self/ns/net"}, tight);
    ASSERT_TRUE(real.ok()) << "the control: nsenter runs at " << what << ": " << real.describe();
    ASSERT_EQ(real.out, ns_line());
    auto mine = ours({"--net=" + link, "--", "sh", "-c", "touch " + marker}, tight);
    expect_refused(
        mine, {"RLIMIT_NOFILE", "soft " + std::to_string(limit) + ", hard " + std::to_string(limit),
               "3 are open", "the checks need 3 free descriptors",
               "raise the hard limit to at least 6", "nothing was run"});
    EXPECT_EQ(mine.err.find('\n'), mine.err.size() - 1) << what << ": one line: " << mine.err;
  }
}

// A net entry mixed with other namespaces is refused (its file would be
// opened unchecked by util-linux), and nothing runs.
TEST_F(NsenterDropIn, ANetFileMixedWithOtherNamespacesIsRefused) {
  RunOptions options;
  options.env = env;
  auto r = run_command(
      {bin + "/nsenter", "--net=" + link, "-m", "-t", "1", "--", "sh", "-c", "touch " + marker},
      options);
  expect_refused(r, {"\"-m\"", "network namespace only"});
}

// Installed as nsenter with no util-linux after it: refused, naming what to install.
TEST_F(NsenterDropIn, NoUtilLinuxNsenterAfterTheDropInIsRefused) {
  RunOptions options;
  options.env = std::map<std::string, std::string>{{"PATH", bin}};
  auto r = run_command({bin + "/nsenter", "--version"}, options);
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_NE(r.err.find("util-linux"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("NETNS_EXEC_NSENTER"), std::string::npos) << r.err;
  // A configured path is used, and one that is netns-exec itself is refused.
  (*options.env)["NETNS_EXEC_NSENTER"] = kNsenter;
  auto configured = run_command({bin + "/nsenter", "--version"}, options);
  auto real = theirs({"--version"});
  expect_same(configured, real, "NETNS_EXEC_NSENTER");
  (*options.env)["NETNS_EXEC_NSENTER"] = NETNS_EXEC_BIN;
  auto loop = run_command({bin + "/nsenter", "--version"}, options);
  EXPECT_EQ(loop.exit_code, 125) << loop.describe();
}

}  // namespace
}  // namespace netns::test::exec
