// The one redaction every error, log line and JSON document passes through.
#include <gtest/gtest.h>

#include "netns_exec/redact.hpp"

namespace {

using netns::exec::redact;
using netns::exec::redact_argv;
using netns::exec::redacted_command_line;

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
}

}  // namespace
