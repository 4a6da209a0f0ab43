// Transparent mode with the real rbd: netns-exec installed as `rbd` is the
// real program (same output and exit status) when the command names no held
// cluster, runs it through the checks into the holder's namespace when it
// does, refuses with 125 without running it when the held
// cluster's holder is gone, and `shim explain` says which way and why.
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

TEST_F(Shim, AHeldClustersCommandRunsInPlaceInItsHolder) {
  // Routed: every check passes, and the real rbd runs (what it entered is
  // shown by explain here, and by strace and inspect in scenario j).
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
