// The one redaction every error, log line and JSON document passes through.
#include <gtest/gtest.h>

#include <fstream>

#include "netns/test/support.hpp"
#include "netns_exec/redact.hpp"

namespace {

using netns::exec::redact;
using netns::exec::redact_argv;
using netns::exec::redacted_command_line;
using netns::exec::secrets_of_argv;

TEST(ExecRedact, MountOptions) {
  EXPECT_EQ(redact("name=admin,secret=AQBxyz==,mds_namespace=fs"),
            "name=admin,secret=<redacted>,mds_namespace=fs");
  EXPECT_EQ(redact("secret=AQB"), "secret=<redacted>");
  EXPECT_EQ(redact("-o key=AQB,ro"), "-o key=<redacted>,ro");
}

TEST(ExecRedact, Flags) {
  EXPECT_EQ(redact("rbd map --key AQBabc p/i"), "rbd map --key <redacted> p/i");
  EXPECT_EQ(redact("rbd map --key=AQBabc p/i"), "rbd map --key=<redacted> p/i");
  EXPECT_EQ(redact("ceph-fuse --secret  S3cr3t /mnt"), "ceph-fuse --secret  <redacted> /mnt");
}

TEST(ExecRedact, KeyringLines) {
  EXPECT_EQ(redact("[client.admin]\n\tkey = AQBxyz==\n\tcaps mon = \"allow r\"\n"),
            "[client.admin]\n\tkey = <redacted>\n\tcaps mon = \"allow r\"\n");
}

TEST(ExecRedact, FilesAndLookalikesStay) {
  EXPECT_EQ(redact("secretfile=/etc/ceph/k,keyring=/etc/ceph/x"),
            "secretfile=/etc/ceph/k,keyring=/etc/ceph/x");
  EXPECT_EQ(redact("--keyfile=/tmp/k --keyring /k"), "--keyfile=/tmp/k --keyring /k");
  EXPECT_EQ(redact("monkey=banana"), "monkey=banana");
  EXPECT_EQ(redact("key="), "key=");
}

TEST(ExecRedact, InsideQuotesAndJson) {
  EXPECT_EQ(redact(R"({"opts":"name=a,secret=XYZ"})"), R"({"opts":"name=a,secret=<redacted>"})");
  EXPECT_EQ(redact("mount: \"secret=XYZ\" failed"), "mount: \"secret=<redacted>\" failed");
}

TEST(ExecRedact, Argv) {
  EXPECT_EQ(redact_argv({"rbd", "--key", "AQB", "map", "-o", "secret=S,ro", "--secret=T"}),
            (std::vector<std::string>{"rbd", "--key", "<redacted>", "map", "-o",
                                      "secret=<redacted>,ro", "--secret=<redacted>"}));
  EXPECT_EQ(redacted_command_line({"sh", "-c", "echo hi", "--secret", "x y"}),
            "sh -c \"echo hi\" --secret <redacted>");
  EXPECT_EQ(redact_argv({"tool", "--userKey", "AQB", "--keyfile", "/k"}),
            (std::vector<std::string>{"tool", "--userKey", "<redacted>", "--keyfile", "/k"}));
}

// The cases netns::ceph's own redaction covered before it became this one.
TEST(ExecRedact, CephCases) {
  EXPECT_EQ(redact("name=admin,secret=AQBabc==,secretfile=/etc/k"),
            "name=admin,secret=<redacted>,secretfile=/etc/k");
  EXPECT_EQ(redact("rbd map --key AQBabc== --keyfile=/k x"),
            "rbd map --key <redacted> --keyfile=/k x");
  EXPECT_EQ(redact("--key=AQBabc== --secret=xyz"), "--key=<redacted> --secret=<redacted>");
  EXPECT_EQ(redact("[client.admin]\n\tkey = AQBabc==\n"), "[client.admin]\n\tkey = <redacted>\n");
  EXPECT_EQ(redact("nothing secret here: keyring=/etc/ceph/keyring"),
            "nothing secret here: keyring=/etc/ceph/keyring");
  EXPECT_EQ(redact_argv({"rbd", "--key", "AQBabc==", "-o", "secret=s3,ro"}),
            (std::vector<std::string>{"rbd", "--key", "<redacted>", "-o", "secret=<redacted>,ro"}));
}

TEST(ExecRedact, RbdEchoOfAnUndecodableKey) {
  EXPECT_EQ(redact("auth: failed to decode key 'AQBabc==\n'"),
            "auth: failed to decode key '<redacted>'");
  EXPECT_EQ(redact("secret: \"S3\" rejected"), "secret: \"<redacted>\" rejected");
}

TEST(ExecRedact, SecretNamesBySuffixAtAWordBoundary) {
  EXPECT_EQ(redact("userKey=AQB,access_key=zzz"), "userKey=<redacted>,access_key=<redacted>");
  EXPECT_EQ(redact("adminKey = AQB aws-secret=s DB_PASSWORD=p token=t"),
            "adminKey = <redacted> aws-secret=<redacted> DB_PASSWORD=<redacted> token=<redacted>");
  EXPECT_EQ(redact("--user-key AQB x"), "--user-key <redacted> x");
  // A suffix inside a word is not a name: monkey, turnkey, keyring, secretfile.
  EXPECT_EQ(redact("monkey=1 turnkey=2 Monkey=3"), "monkey=1 turnkey=2 Monkey=3");
  EXPECT_EQ(redact("--monkey banana"), "--monkey banana");
}

TEST(ExecRedact, ValueEndsAtSeparators) {
  EXPECT_EQ(redact("token=abc&x=1;secret=s;y=2"), "token=<redacted>&x=1;secret=<redacted>;y=2");
  EXPECT_EQ(redact(R"({"o":"key=A\"B"})"), R"({"o":"key=<redacted>\"B"})");
}

}  // namespace

namespace {

TEST(ExecRedact, ShortOptionWithAttachedValue) {
  EXPECT_EQ(redact("mount -osecret=AQBx,ro /m"), "mount -osecret=<redacted>,ro /m");
  EXPECT_EQ(redact("-oname=admin,secret=AQBx"), "-oname=admin,secret=<redacted>");
  EXPECT_EQ(redact_argv({"mount", "-osecret=AQBx", "-okey=K2"}),
            (std::vector<std::string>{"mount", "-osecret=<redacted>", "-okey=<redacted>"}));
  // Not a secret name after the letter: stays.
  EXPECT_EQ(redact("-omonkey=1 -osecretfile=/k"), "-omonkey=1 -osecretfile=/k");
}

TEST(ExecRedact, KnownSecretsFromArgvAreHiddenWhereverTheyAppear) {
  netns::test::TempDir dir;
  std::string keyfile = dir / "key";
  std::ofstream(keyfile) << "AQBkeyfilecontents1234==\n";
  std::string keyring = dir / "keyring";
  std::ofstream(keyring) << "[client.admin]\n\tkey = AQBkeyringcontents5678==\n";
  const std::vector<std::string> argv{"netns-exec",
                                      "--key",
                                      "AQBflagvalue",
                                      "-o",
                                      "name=a,secret=AQBoptvalue",
                                      "--keyfile",
                                      keyfile,
                                      "--keyring=" + keyring,
                                      "-osecretfile=" + keyfile};
  auto known = secrets_of_argv(argv);
  // A parse error that lists the value before its flag, and a tool that
  // echoes key file contents: all hidden.
  std::string text =
      "not expected: AQBflagvalue --key; AQBoptvalue; decode AQBkeyfilecontents1234== "
      "and AQBkeyringcontents5678== failed";
  std::string out = redact(text, known);
  for (const char* s : {"AQBflagvalue", "AQBoptvalue", "AQBkeyfilecontents", "AQBkeyringcontents"})
    EXPECT_EQ(out.find(s), std::string::npos) << s << " in: " << out;
  EXPECT_NE(out.find("--key;"), std::string::npos) << out;
  // The paths themselves are shown.
  EXPECT_EQ(redacted_command_line(argv).find(keyfile) != std::string::npos, true);
}

TEST(ExecRedact, AFlagAtTheEndDoesNotHideTheNextSentence) {
  EXPECT_EQ(redact("unexpected: --key; see netns-exec --help"),
            "unexpected: --key; see netns-exec --help");
  EXPECT_EQ(redact("--key <redacted> x"), "--key <redacted> x");
}

TEST(ExecRedact, ShortKnownSecretsAndUnreadableFilesAreSkipped) {
  auto known = secrets_of_argv({"--key", "ab", "--keyfile", "/nonexistent/key"});
  EXPECT_EQ(redact("ab cab", known), "ab cab");
}

// CLI11's own parse errors go through the same redaction, with the argv's
// secrets known.
TEST(ExecRedact, CliParseErrorsHideTheValue) {
  auto r = netns::test::run_command(
      {NETNS_EXEC_BIN, "--key", "AQBparseerror", "run", "--netns", "/x", "--", "true"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_EQ(r.err.find("AQBparseerror"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("<redacted>"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("see netns-exec --help"), std::string::npos) << r.err;
  auto mistyped = netns::test::run_command(
      {NETNS_EXEC_BIN, "run", "--netns", "/x", "--secret", "S3cr3tValue", "true"});
  EXPECT_EQ(mistyped.err.find("S3cr3tValue"), std::string::npos) << mistyped.err;
}

}  // namespace
