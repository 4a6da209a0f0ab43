// ceph-csi's config.json lookup, and the source/option parsing around it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <functional>
#include <thread>

#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/source.hpp"

namespace {

namespace ex = netns::exec;
using netns::Errc;
using netns::Error;

class ExecConfig : public ::testing::Test {
 protected:
  std::string write(const std::string& content) {
    netns::UniqueFd d = netns::open_fd(tmp.path(), O_RDONLY | O_DIRECTORY);
    netns::write_file_atomic(d.get(), "config.json", content, 0644, tmp.path());
    return tmp / "config.json";
  }
  static Errc code_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    ADD_FAILURE() << "no error";
    return Errc::system;
  }
  netns::test::TempDir tmp;
};

TEST_F(ExecConfig, PicksTheKind) {
  auto cfg = write(R"([
    {"clusterID": "a", "monitors": ["198.18.0.1:6789"],
     "rbd": {"netNamespaceFilePath": "/r/a.net.ns"},
     "cephFS": {"netNamespaceFilePath": "/c/a.net.ns", "subvolumeGroup": "csi"},
     "nfs": {"netNamespaceFilePath": "/n/a.net.ns"}},
    {"clusterID": "b", "rbd": {"netNamespaceFilePath": ""}, "cephFS": {}}
  ])");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "a", ex::ConfigKind::rbd), "/r/a.net.ns");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "a", ex::ConfigKind::cephfs), "/c/a.net.ns");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "a", ex::ConfigKind::nfs), "/n/a.net.ns");
  // Empty or absent: run in the caller's own namespace, as ceph-csi does.
  EXPECT_EQ(ex::lookup_netns_path(cfg, "b", ex::ConfigKind::rbd), "");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "b", ex::ConfigKind::cephfs), "");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "b", ex::ConfigKind::nfs), "");
}

TEST_F(ExecConfig, Refusals) {
  auto cfg = write(R"([{"clusterID": "a", "rbd": {"netNamespaceFilePath": 7}}])");
  EXPECT_EQ(code_of([&] { ex::lookup_netns_path(cfg, "a", ex::ConfigKind::rbd); }),
            Errc::invalid_argument);
  // A wrong type anywhere fails Go's Unmarshal, so ceph-csi uses no cluster
  // of the file: another cluster's lookup is refused too.
  EXPECT_EQ(code_of([&] { ex::lookup_netns_path(cfg, "zz", ex::ConfigKind::rbd); }),
            Errc::invalid_argument);
  EXPECT_EQ(code_of([&] {
              ex::lookup_netns_path(write(R"([{"clusterID": "a"}])"), "zz", ex::ConfigKind::rbd);
            }),
            Errc::not_found);
  EXPECT_EQ(code_of([&] { ex::lookup_netns_path(cfg, "../a", ex::ConfigKind::rbd); }),
            Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ex::lookup_netns_path(write("{}"), "a", ex::ConfigKind::rbd); }),
            Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ex::lookup_netns_path(write("[1,"), "a", ex::ConfigKind::rbd); }),
            Errc::invalid_argument);
  EXPECT_EQ(code_of([&] { ex::lookup_netns_path(tmp / "none", "a", ex::ConfigKind::rbd); }),
            Errc::system);
}

TEST_F(ExecConfig, ParsesOptionValues) {
  EXPECT_EQ(ex::parse_config_kind("cephfs"), ex::ConfigKind::cephfs);
  EXPECT_EQ(ex::parse_identity_policy("if-present"), ex::IdentityPolicy::if_present);
  EXPECT_EQ(ex::parse_identity_policy("require"), ex::IdentityPolicy::require);
  EXPECT_EQ(ex::parse_identity_policy("off"), ex::IdentityPolicy::off);
  EXPECT_THROW(ex::parse_identity_policy("maybe"), Error);
  EXPECT_THROW(ex::parse_config_kind("rgw"), Error);
}

TEST_F(ExecConfig, WaitWakesOnPublicationNotOnTheDeadline) {
  // A regular file appears where the namespace file is awaited: resolve wakes
  // at once and refuses it as "not a namespace", long before the deadline.
  std::string path = tmp / "sub/x.net.ns";
  std::thread publisher([&] {
    // Published once resolve watches (an inotify watch exists), so the test
    // shows a wake-up, not a file that was there at the first look.
    EXPECT_TRUE(netns::test::wait_until([] { return netns::test::watching_with_inotify(); },
                                        std::chrono::seconds(10)))
        << "resolve never started watching";
    ::mkdir((tmp / "sub").c_str(), 0755);
    netns::UniqueFd d = netns::open_fd(tmp / "sub", O_RDONLY | O_DIRECTORY);
    netns::write_file_atomic(d.get(), "x.net.ns", "not a namespace", 0644, tmp / "sub");
  });
  ex::ResolveOptions options;
  options.wait_holder = std::chrono::seconds(20);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(code_of([&] { ex::resolve(ex::Source::netns_path(path), options); }),
            Errc::not_a_namespace);
  publisher.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(ExecConfig, WaitIsBounded) {
  ex::ResolveOptions options;
  options.wait_holder = std::chrono::milliseconds(150);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(code_of([&] { ex::resolve(ex::Source::netns_path(tmp / "x.net.ns"), options); }),
            Errc::not_found);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, std::chrono::milliseconds(150));
  EXPECT_LT(took, netns::test::scaled(std::chrono::seconds(3)));
}

TEST_F(ExecConfig, CliUsageErrorsAre125) {
  auto r = netns::test::run_command(
      {NETNS_EXEC_BIN, "run", "--timeout", "5 minutes", "--netns", "/x", "--", "true"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_NE(r.err.find("--timeout"), std::string::npos) << r.err;
  auto j = netns::test::run_command({NETNS_EXEC_BIN, "--log-format", "json", "run", "--netns",
                                     tmp / "none.net.ns", "--", "true"});
  EXPECT_EQ(j.exit_code, 125) << j.describe();
  EXPECT_EQ(j.err.rfind("{\"time\":", 0), 0u) << j.err;
  EXPECT_NE(j.err.find("\"level\":\"error\""), std::string::npos) << j.err;
  auto unknown = netns::test::run_command({NETNS_EXEC_BIN, "frobnicate"});
  EXPECT_EQ(unknown.exit_code, 125) << unknown.describe();
  auto help = netns::test::run_command({NETNS_EXEC_BIN, "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.describe();
  EXPECT_NE(help.out.find("run"), std::string::npos);
}

}  // namespace
