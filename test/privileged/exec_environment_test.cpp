// The environment the nsenter form reads: only documented values. A plugin
// container that sets NETNS_EXEC_IDENTITY=off (a value the CLI's --identity
// knows, but the environment never offered) would otherwise switch the
// holder check off for every command; it is refused before anything runs.
#include <gtest/gtest.h>

#include "exec_fixture.hpp"

namespace {

using namespace netns;
using namespace netns::test;
using namespace netns::test::exec;

struct Environment : ExecFixture {
  // A record-less link in a holder directory: what only the record check
  // refuses, so a value that turned it off would show as a command that ran.
  void SetUp() override {
    ExecFixture::SetUp();
    if (IsSkipped()) return;
    ns = std::make_unique<NetnsChild>();
    UniqueFd d = open_fd(holder_dir, O_RDONLY | O_DIRECTORY);
    symlink_atomic(d.get(), "ceph-a.net.ns", ns->ns_path(), holder_dir);
    link = holder_dir + "/ceph-a.net.ns";
  }
  RunResult nsenter_form(const std::string& identity) const {
    RunOptions options;
    options.env = std::map<std::string, std::string>{{"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"},
                                                     {"NETNS_EXEC_IDENTITY", identity}};
    return exec_touch({"--net=" + link}, options);
  }
  std::unique_ptr<NetnsChild> ns;
  std::string link;
};

TEST_F(Environment, AnUndocumentedIdentityValueIsRefusedNamingTheAllowedOnes) {
  // Control: the documented opt-in runs the command in that namespace.
  RunResult allowed = nsenter_form("if-present");
  ASSERT_TRUE(allowed.ok()) << allowed.describe();
  ASSERT_TRUE(marker_exists());
  ::unlink(marker.c_str());

  for (const char* value : {"off", "OFF", "0", "if-present ", "disabled"}) {
    RunResult r = nsenter_form(value);
    SCOPED_TRACE(value);
    expect_refused(r, {"NETNS_EXEC_IDENTITY", "\"require\" and \"if-present\""});
  }
  // The documented default, spelled out, still requires the record.
  expect_refused(nsenter_form("require"), {"ceph-a.holder.json"});
}

}  // namespace
