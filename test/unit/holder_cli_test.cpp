// netns-holder's command line and bad input: each mistake is one line naming
// the value and what is allowed, a distinct exit status, and nothing published.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "netns/fd.hpp"
#include "netns/test/support.hpp"

namespace {

using netns::test::RunResult;
using netns::test::TempDir;
using namespace std::chrono_literals;

const std::string kHolder = NETNS_HOLDER_BIN;

RunResult holder(std::vector<std::string> args, netns::test::RunOptions options = {}) {
  args.insert(args.begin(), kHolder);
  options.timeout = 10s;  // a holder that wrongly starts would otherwise pause forever
  return netns::test::run_command(args, options);
}

size_t lines(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

bool dir_is_empty(const std::string& path) {
  auto fds = netns::test::run_command({"find", path, "-mindepth", "1"});
  return fds.ok() && fds.out.empty();
}

// Asserts a usage-style failure: `code`, one line on stderr containing every `needle`.
void expect_one_line_error(const RunResult& r, int code, const std::vector<std::string>& needles) {
  EXPECT_EQ(r.exit_code, code) << r.describe();
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  for (const auto& n : needles)
    EXPECT_NE(r.err.find(n), std::string::npos) << "missing " << n << " in: " << r.err;
}

TEST(HolderCli, HelpDocumentsUsageAndExitCodes) {
  auto r = holder({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* s : {"--cluster-id", "--dir", "--socket", "--allow-uid", "check", "Exit status",
                        "  2  usage error", "  3  another holder", "  4  refused"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  auto v = holder({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("netns-holder ", 0), 0u) << v.out;
}

TEST(HolderCli, InvalidClusterIdsAreUsageErrorsThatNameTheValue) {
  TempDir tmp;
  struct Case {
    std::string id;
    std::string shown;  // how the message quotes it
  };
  const std::vector<Case> cases = {
      {"", "\"\""},
      {".", "\".\""},
      {"..", "\"..\""},
      {"a/b", "\"a/b\""},
      {"-lead", "\"-lead\""},
      {std::string(65, 'x'), "\"" + std::string(65, 'x') + "\""},
      {"tab\there", "\"tab\\there\""},
      {"esc\x1b", "\"esc\\x1b\""},
      {"caf\xc3\xa9", "\"caf\\xc3\\xa9\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.shown);
    auto r = holder({"--cluster-id", c.id, "--dir", tmp / "d"});
    expect_one_line_error(r, 2, {"invalid cluster ID " + c.shown, "1-64 characters"});
    auto chk = holder({"check", "--cluster-id", c.id, "--dir", tmp / "d"});
    expect_one_line_error(chk, 2, {"invalid cluster ID " + c.shown});
  }
  EXPECT_TRUE(dir_is_empty(tmp.path())) << "nothing may be created for a bad ID";
}

TEST(HolderCli, UnknownFlagsAndBadValuesAreUsageErrors) {
  TempDir tmp;
  std::string d = tmp / "d";
  expect_one_line_error(
      holder({"--cluster-id", "a", "--dir", d, "--bogus"}), 2,
      {"unknown option \"--bogus\"", "--cluster-id, --dir, --socket, --allow-uid"});
  expect_one_line_error(holder({"--cluster-id", "a", "--dir", d, "stray"}), 2,
                        {"unexpected argument \"stray\""});
  // Only whole names: an abbreviation, "--", a short option other than -h and
  // an option check does not take are unknown, each named as written.
  for (const std::string bad : {"--clus=a", "--so", "--", "-s"})
    expect_one_line_error(holder({"--cluster-id", "a", "--dir", d, bad}), 2,
                          {"unknown option \"" + bad + "\""});
  expect_one_line_error(holder({"check", "--cluster-id", "a", "--dir", d, "--version"}), 2,
                        {"unknown option \"--version\"", "check takes --cluster-id, --dir"});
  expect_one_line_error(holder({"--dir", d}), 2, {"--cluster-id is required"});
  expect_one_line_error(holder({"--cluster-id", "a"}), 2, {"--dir is required"});
  expect_one_line_error(holder({"--cluster-id", "a", "--dir"}), 2, {"--dir needs a value"});
  expect_one_line_error(holder({"--cluster-id", "a", "--cluster-id", "b", "--dir", d}), 2,
                        {"--cluster-id is given twice"});
  expect_one_line_error(
      holder({"--cluster-id", "a", "--dir", d, "--socket", "--allow-uid", "root"}), 2,
      {"--allow-uid \"root\"", "numeric uid"});
  expect_one_line_error(
      holder({"--cluster-id", "a", "--dir", d, "--socket", "--allow-uid", "4294967295"}), 2,
      {"--allow-uid \"4294967295\""});
  expect_one_line_error(holder({"--cluster-id", "a", "--dir", d, "--allow-uid", "0"}), 2,
                        {"--allow-uid only applies with --socket"});
  expect_one_line_error(holder({"--cluster-id", "a", "--dir", d, "--socket=yes"}), 2,
                        {"--socket takes no value", "\"yes\""});
  expect_one_line_error(holder({"check", "--cluster-id", "a", "--dir", d, "--socket"}), 2,
                        {"unknown option \"--socket\"", "check takes --cluster-id, --dir"});
  EXPECT_TRUE(dir_is_empty(tmp.path()));
}

TEST(HolderCli, EqualsFormIsAccepted) {
  TempDir tmp;
  // Parses, then fails at run time on the non-directory: proves the values were read.
  std::string file = tmp / "file";
  netns::write_all(netns::open_fd(file, O_WRONLY | O_CREAT, 0644).get(), "x", file);
  auto r = holder({"--cluster-id=ok-id", "--dir=" + file});
  expect_one_line_error(r, 1, {"\"" + file + "\"", "Not a directory"});
}

TEST(HolderCli, NonDirectoryDirIsARuntimeErrorThatNamesThePath) {
  TempDir tmp;
  std::string file = tmp / "file";
  netns::write_all(netns::open_fd(file, O_WRONLY | O_CREAT, 0644).get(), "x", file);
  expect_one_line_error(holder({"--cluster-id", "c", "--dir", file}), 1,
                        {"\"" + file + "\"", "(ENOTDIR)", "--dir must be a directory"});
  expect_one_line_error(holder({"--cluster-id", "c", "--dir", file + "/sub"}), 1,
                        {"\"" + file + "/sub\"", "(ENOTDIR)"});
  auto only = netns::test::run_command({"ls", "-A", tmp.path()});
  EXPECT_EQ(only.out, "file\n") << "nothing may be published";
}

TEST(HolderCli, UnwritableDirIsARuntimeErrorThatNamesThePath) {
  TempDir tmp;
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0755), 0);
  std::string ro = tmp / "ro";
  ASSERT_EQ(::mkdir(ro.c_str(), 0555), 0);
  netns::test::RunOptions options;
  if (::geteuid() == 0) {
    // Root ignores permission bits: run the holder as nobody.
    options.child_setup = [] {
      if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
        ::_exit(99);
    };
  }
  expect_one_line_error(holder({"--cluster-id", "c", "--dir", ro}, options), 1,
                        {"\"" + ro + "/c.lock\"", "(EACCES)",
                         "--dir must be a directory this holder can create files in"});
  expect_one_line_error(holder({"--cluster-id", "c", "--dir", ro + "/new"}, options), 1,
                        {"mkdir \"" + ro + "/new\"", "(EACCES)"});
  EXPECT_TRUE(dir_is_empty(ro));
}

}  // namespace
