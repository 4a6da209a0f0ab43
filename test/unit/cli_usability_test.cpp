// netns-exec as a new user meets it: --version, typos, bad numbers, the
// --json documents' format, structured JSON log lines, and inspect's warning
// when no holder is configured.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "netns/test/support.hpp"

namespace {

using netns::test::run_command;
using netns::test::RunResult;

RunResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), NETNS_EXEC_BIN);
  return run_command(args);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The JSON lines of stderr (--log-format json).
std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

class CliUsability : public ::testing::Test {
 protected:
  // A ceph-csi config whose cluster "no-holder" names no namespace file.
  std::string config() {
    std::string path = tmp / "config.json";
    std::ofstream(path) << R"([{"clusterID": "no-holder", "monitors": ["198.18.0.1:6789"],
                               "rbd": {"netNamespaceFilePath": ""}}])";
    return path;
  }
  netns::test::TempDir tmp;
};

TEST_F(CliUsability, Version) {
  auto r = cli({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "netns-exec " NETNS_PROJECT_VERSION "\n");  // the VERSION file
}

TEST_F(CliUsability, ATypoGetsTheClosestSubcommand) {
  auto r = cli({"inpsect", "--netns", "/x"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_TRUE(has(r.err, "unknown subcommand \"inpsect\" (did you mean \"inspect\"?)")) << r.err;
  EXPECT_FALSE(has(r.err, "A subcommand is required")) << r.err;
  // After a global option and its value too.
  r = cli({"--log-level", "info", "rnu", "--", "true"});
  EXPECT_TRUE(has(r.err, "did you mean \"run\"?")) << r.err;
  // Control: nothing close, no suggestion, but still named.
  r = cli({"frobnicate"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_TRUE(has(r.err, "unknown subcommand \"frobnicate\"")) << r.err;
  EXPECT_FALSE(has(r.err, "did you mean")) << r.err;
}

TEST_F(CliUsability, ATypoGetsTheClosestOption) {
  auto r = cli({"run", "--timout", "5s", "--netns", "/x", "--", "true"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_TRUE(has(r.err, "run: unknown option \"--timout\" (did you mean \"--timeout\"?)"))
      << r.err;
  // Before the subcommand too.
  r = cli({"--log-formt", "json", "run", "--", "true"});
  EXPECT_TRUE(has(r.err, "unknown option \"--log-formt\" (did you mean \"--log-format\"?)"))
      << r.err;
  // Options of the SOURCE group count as the subcommand's.
  r = cli({"run", "--cluster-idd", "a", "--", "true"});
  EXPECT_TRUE(has(r.err, "did you mean \"--cluster-id\"?")) << r.err;
  // After "--" everything is the command's: not a typo of ours.
  r = cli({"run", "--netns", tmp / "none.net.ns", "--", "ls", "--colr"});
  EXPECT_FALSE(has(r.err, "--colr")) << r.err;
  // The value of a mistyped option is never echoed (it could be a key).
  r = cli({"map", "--netns", "/x", "--kye", "AQBsecret", "--pool", "p"});
  EXPECT_FALSE(has(r.err, "AQBsecret")) << r.err;
}

TEST_F(CliUsability, NegativeOutputLimitIsRefused) {
  auto r =
      cli({"run", "--json", "--output-limit", "-5", "--netns", tmp / "none.net.ns", "--", "true"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_TRUE(has(r.err, "--output-limit")) << r.err;
  // Control: a good value gets past parsing (to the missing namespace).
  r = cli({"run", "--json", "--output-limit", "5", "--netns", tmp / "none.net.ns", "--", "true"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_FALSE(has(r.err, "--output-limit")) << r.err;
  EXPECT_TRUE(has(r.err, "none.net.ns")) << r.err;
}

TEST_F(CliUsability, JsonDocumentsCarryTheirFormat) {
  // Refused (nothing ran).
  auto r = cli({"run", "--json", "--netns", tmp / "none.net.ns", "--", "true"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["format"], 1) << r.out;
  EXPECT_EQ(doc["error"]["code"], "not_found") << r.out;
  // Ran, in our own namespace (the config names no holder).
  r = cli({"run", "--json", "--cluster-id", "no-holder", "--config", config(), "--", "echo", "hi"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["format"], 1) << r.out;
  EXPECT_EQ(doc["stdout"]["data"], "hi\n") << r.out;
  EXPECT_EQ(doc["netns"]["own_namespace"], true) << r.out;
  // A Ceph operation, refused.
  r = cli({"map", "--json", "--netns", tmp / "none.net.ns", "--pool", "p", "--image", "i", "--mon",
           "198.18.0.1:6789", "--id", "admin", "--keyfile", tmp / "key"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["format"], 1) << r.out;
  EXPECT_EQ(doc["operation"], "map") << r.out;
  EXPECT_EQ(doc["error"]["code"], "not_found") << r.out;
  // The schema document exists and describes the field.
  std::ifstream schema(std::string(NETNS_SOURCE_DIR) + "/executor/cli/JSON.md");
  std::stringstream text;
  text << schema.rdbuf();
  EXPECT_TRUE(has(text.str(), "| `format` | integer | 1 |"));
}

TEST_F(CliUsability, JsonLogLinesAreStructured) {
  std::string missing = tmp / "none.net.ns";
  auto r = cli({"--log-format", "json", "run", "--netns", missing, "--", "true"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  auto lines = json_lines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  const auto& line = lines[0];
  EXPECT_EQ(line["level"], "error") << line;
  EXPECT_TRUE(line["time"].is_string()) << line;
  EXPECT_TRUE(has(line["msg"].get<std::string>(), "none.net.ns")) << line;
  EXPECT_EQ(line["subcommand"], "run") << line;
  EXPECT_EQ(line["step"], "resolve") << line;
  EXPECT_EQ(line["source"], "netns") << line;
  EXPECT_EQ(line["path"], missing) << line;
  EXPECT_EQ(line["code"], "not_found") << line;
  EXPECT_EQ(line["errno"], 2) << line;
  EXPECT_EQ(line["errno_name"], "ENOENT") << line;
  EXPECT_TRUE(line["hint"].is_string()) << line;

  // The cluster source names the cluster, config and kind.
  r = cli({"--log-format", "json", "--log-level", "info", "run", "--cluster-id", "no-holder",
           "--config", config(), "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  lines = json_lines(r.err);
  ASSERT_FALSE(lines.empty()) << r.err;
  EXPECT_EQ(lines[0]["cluster"], "no-holder") << lines[0];
  EXPECT_EQ(lines[0]["source"], "cluster") << lines[0];
  EXPECT_EQ(lines[0]["kind"], "rbd") << lines[0];
  EXPECT_TRUE(lines[0]["netns_ino"].is_number()) << lines[0];
}

// inspect runs netlink and sock_diag from a thread that enters the namespace.
TEST_F(CliUsability, InspectWarnsWhenNoHolderIsConfigured) {
  NETNS_REQUIRE_ROOT();
  auto r = cli({"inspect", "--cluster-id", "no-holder", "--config", config()});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(has(r.err, "warning: cluster \"no-holder\" has no netNamespaceFilePath for kind rbd"))
      << r.err;
  EXPECT_TRUE(has(r.err, "showing the caller's own network namespace")) << r.err;
  // Control: a typo'd cluster is refused, not shown.
  r = cli({"inspect", "--cluster-id", "no-such", "--config", config()});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_EQ(r.out, "");
}

}  // namespace
