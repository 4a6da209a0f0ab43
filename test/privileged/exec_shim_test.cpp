// Transparent mode with the real rbd: netns-exec installed as `rbd` is the
// real program (same output and exit status) when the command names no held
// cluster and opens no session, runs it through the checks into the holder's
// namespace when it names a held cluster (even `rbd -m HELD --version`),
// refuses with 125 without running it when the held cluster's holder is gone
// or when a session-opening call (map) cannot be matched to a cluster (fail
// closed), and `shim explain` says which way and why.
// (scenario j_transparent_mode shows the same against a real Ceph cluster.)
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "exec_fixture.hpp"

namespace netns::test::exec {
namespace {

const char* const kRealRbd = "/usr/bin/rbd";
const char* const kMon = "198.18.0.1:6789";

struct Shim : HeldExecFixture {
  void SetUp() override {
    HeldExecFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(::access(kRealRbd, X_OK), 0) << "the real rbd (ceph-common) is needed";
    bin = tmp.subdir("bin");
    ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (bin + "/rbd").c_str()), 0);
    cfg = config(std::string(R"([{"clusterID": "ceph-a", "monitors": ["v1:)") + kMon +
                 R"("]}, {"clusterID": "ceph-b", "monitors": ["198.18.1.1"]}])");
    env = std::map<std::string, std::string>{{"PATH", bin + ":/usr/sbin:/usr/bin:/sbin:/bin"},
                                             {"NETNS_EXEC_CONFIG", cfg},
                                             {"NETNS_EXEC_HOLDER_DIR", holder_dir},
                                             {"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}};
  }
  // `rbd ARGS` as a shell runs it, the shim first on PATH.
  [[nodiscard]] RunResult rbd(const std::vector<std::string>& args,
                              const std::string& script = "exec rbd \"$@\"") const {
    std::vector<std::string> argv{"/bin/sh", "-c", script, "sh"};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.env = env;
    return run_command(argv, options);
  }
  [[nodiscard]] RunOptions with_env() const {
    RunOptions options;
    options.env = env;
    return options;
  }
  [[nodiscard]] RunResult real(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{kRealRbd};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
  }

  std::string bin, cfg;
  std::map<std::string, std::string> env;
};

// Ceph's log lines start with a time and a thread id, which differ between
// runs: "2026-12-01T21:44:18.123+0000 7f12ab34cd56 ". (No std::regex: GCC 12
// warns inside <regex> under the sanitizer build's -O1, and warnings are errors.)
std::string without_stamp(std::string_view line) {
  auto digits = [&](size_t from, size_t n) {
    if (line.size() < from + n) return false;
    for (size_t i = from; i < from + n; ++i)
      if (!std::isdigit(static_cast<unsigned char>(line[i]))) return false;
    return true;
  };
  if (!(digits(0, 4) && line.size() > 10 && line[4] == '-' && digits(5, 2) && line[7] == '-' &&
        digits(8, 2) && line[10] == 'T'))
    return std::string(line);
  size_t time_end = line.find(' ', 11);
  if (time_end == std::string_view::npos || time_end == 11) return std::string(line);
  size_t id_end = line.find(' ', time_end + 1);
  if (id_end == std::string_view::npos || id_end == time_end + 1) return std::string(line);
  for (size_t i = time_end + 1; i < id_end; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(line[i]))) return std::string(line);
  return std::string(line.substr(id_end + 1));
}

std::string without_stamps(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    size_t next = end == std::string::npos ? text.size() : end + 1;
    out += without_stamp(std::string_view(text).substr(start, next - start));
    start = next;
  }
  return out;
}

TEST_F(Shim, NoHeldClusterNamedIsTheRealProgramUntouched) {
  // No monitors; an unheld cluster's; monitors no cluster has: the real
  // rbd's own output and status (here a usage error), byte for byte.
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--version"},
                                               {"help", "map"},
                                               {"--no-such-option"},
                                               {"-m", "198.18.1.1", "--version"},
                                               {"-m", "198.18.9.9:3300", "--no-such-option"}}) {
    auto mine = rbd(args);
    auto theirs = real(args);
    EXPECT_EQ(mine.exit_code, theirs.exit_code) << args.front() << ": " << mine.describe();
    EXPECT_EQ(mine.out, theirs.out) << args.front();
    EXPECT_EQ(without_stamps(mine.err), without_stamps(theirs.err)) << args.front();
  }
}

TEST_F(Shim, CallsWithoutASessionStayTheRealProgramWhateverIsBroken) {
  // A typo'd held list and an unreadable config refuse sessions only: what
  // opens none is the real rbd's own output and status, byte for byte.
  env["NETNS_EXEC_HELD_CLUSTERS"] = "Ceph-A";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--version"},
                                               {"help", "map"},
                                               {"device", "list"},
                                               {"showmapped"},
                                               {"-m", "198.18.1.1", "--version"}}) {
    auto mine = rbd(args);
    auto theirs = real(args);
    EXPECT_EQ(mine.exit_code, theirs.exit_code) << args.front() << ": " << mine.describe();
    EXPECT_EQ(mine.out, theirs.out) << args.front();
    EXPECT_EQ(without_stamps(mine.err), without_stamps(theirs.err)) << args.front();
  }
  env["NETNS_EXEC_HELD_CLUSTERS"] = "ceph-a";
  std::ofstream(tmp / "broken.json") << "{not json";
  ASSERT_EQ(::chmod((tmp / "broken.json").c_str(), 0644), 0);
  env["NETNS_EXEC_CONFIG"] = tmp / "broken.json";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--version"}, {"-m", kMon, "--version"}}) {
    auto mine = rbd(args);
    auto theirs = real(args);
    EXPECT_EQ(mine.exit_code, theirs.exit_code) << args.back() << ": " << mine.describe();
    EXPECT_EQ(mine.out, theirs.out) << args.back();
  }
}

// `rbd ... map` without an image spec exits 22 before it connects anywhere:
// had the shim run it, the status would say so, and no packet left.
TEST_F(Shim, AMapThatCannotBeMatchedNeverRunsTheRealRbd) {
  env["CEPH_CONF"] = tmp / "missing.conf";
  env["HOME"] = tmp.path();
  struct Case {
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::vector<std::string> needles;
  };
  for (const Case& c : std::vector<Case>{
           {{"-m", "198.18.9.9", "map"}, {}, {"\"198.18.9.9\"", "NETNS_EXEC_UNMATCHED=own-netns"}},
           {{"--id", "admin", "map"}, {}, {tmp / "missing.conf"}},
           {{"-m", kMon, "map"},
            {{"NETNS_EXEC_HELD_CLUSTERS", "Ceph-A"}},
            {"did you mean \"ceph-a\"?"}},
           {{"-m", std::string(kMon) + ",198.18.1.1", "map"}, {}, {"ambiguous"}},
           // Ceph parses CEPH_ARGS after argv: its monitors are the ones used.
           {{"-m", "198.18.1.1", "map"}, {{"CEPH_ARGS", "-m 198.18.9.9"}}, {"CEPH_ARGS -m"}},
       }) {
    auto saved = env;
    for (const auto& [k, v] : c.env) env[k] = v;
    auto r = rbd(c.args);
    env = saved;
    SCOPED_TRACE(c.args.front() + " " + c.args[1]);
    EXPECT_EQ(r.exit_code, 125) << r.describe();
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.find("image name was not specified"), std::string::npos) << "the real rbd ran";
    for (const auto& n : c.needles)
      EXPECT_NE(r.err.find(n), std::string::npos) << "missing " << n << " in " << r.err;
  }
  // The operator's opt-out: the real rbd runs in the caller's namespace, with a warning.
  env["NETNS_EXEC_UNMATCHED"] = "own-netns";
  auto r = rbd({"-m", "198.18.9.9", "map"});
  EXPECT_EQ(r.exit_code, 22) << r.describe();
  EXPECT_NE(r.err.find("netns-exec: warning: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("image name was not specified"), std::string::npos) << r.err;
}

TEST_F(Shim, AHeldClustersCommandRunsInPlaceInItsHolder) {
  // Routed: every check passes, and the real rbd runs (what it entered is
  // shown by explain here, and by strace and inspect in scenario j). A
  // `--version` opens no session, but names a held cluster: served from its
  // holder like every call of that cluster.
  auto r = rbd({"-m", kMon, "--version"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, real({"--version"}).out);
  auto explain = run_command(
      {NETNS_EXEC_BIN, "shim", "explain", "--json", "--", bin + "/rbd", "-m", kMon, "map", "rbd/x"},
      with_env());
  ASSERT_TRUE(explain.ok()) << explain.describe();
  auto doc = nlohmann::json::parse(explain.out);
  EXPECT_EQ(doc["cluster"], "ceph-a");
  EXPECT_EQ(doc["held"], true);
  EXPECT_EQ(doc["holder"], holder_dir + "/ceph-a.net.ns");
  EXPECT_EQ(doc["real"]["path"], kRealRbd);
  EXPECT_NE(
      doc["decision"].get<std::string>().find("net:[" + std::to_string(ns->ns_id().ino) + "]"),
      std::string::npos)
      << explain.out;
}

TEST_F(Shim, AHeldClusterWithoutItsHolderIsRefusedAndNothingRuns) {
  ASSERT_EQ(::unlink((holder_dir + "/ceph-a.net.ns").c_str()), 0);
  env["NETNS_EXEC_WAIT_HOLDER"] = "200ms";
  auto r = rbd({"-m", kMon, "--version"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_EQ(r.out, "") << "the real rbd ran";
  for (const std::string& needle :
       {std::string("\"ceph-a\""), std::string(kMon), holder_dir + "/ceph-a.net.ns"})
    EXPECT_NE(r.err.find(needle), std::string::npos) << "missing " << needle << " in " << r.err;
  auto explain =
      run_command({NETNS_EXEC_BIN, "shim", "explain", "--", "rbd", "-m", kMon, "ls"}, with_env());
  EXPECT_EQ(explain.exit_code, 125) << explain.describe();
  EXPECT_NE(explain.out.find("refused (125)"), std::string::npos) << explain.out;
  // The control: unheld, the same command runs.
  env["NETNS_EXEC_HELD_CLUSTERS"] = "ceph-b";
  auto unheld = rbd({"-m", kMon, "--version"});
  EXPECT_TRUE(unheld.ok()) << unheld.describe();
}

}  // namespace
}  // namespace netns::test::exec
