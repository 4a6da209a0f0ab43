// Transparent mode's decision: which cluster of ceph-csi's config.json a
// command's monitors belong to, whether it is held, and which holder file
// is opened (the config's netNamespaceFilePath wins; else the holder
// directory's <ID>.net.sock, else <ID>.net.ns).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/shim/route.hpp"

namespace {

namespace ex = netns::exec;
using namespace netns::exec::shim;

struct ShimRoute : ::testing::Test {
  void SetUp() override {
    env.config = write(R"([
      {"clusterID": "ceph-a", "monitors": ["198.18.0.1:6789", "198.18.0.2:6789"]},
      {"clusterID": "ceph-a-tenant", "monitors": ["198.18.0.1:6789"]},
      {"clusterID": "ceph-b", "monitors": ["[v2:198.18.1.1:3300,v1:198.18.1.1:6789]"],
       "rbd": {"netNamespaceFilePath": "/configured/ceph-b.net.ns"}},
      {"clusterID": "ceph-c", "monitors": ["198.18.2.1"]}
    ])");
    env.holder_dir = tmp.path();
  }
  std::string write(const std::string& content) {
    netns::UniqueFd d = netns::open_fd(tmp.path(), O_RDONLY | O_DIRECTORY);
    netns::write_file_atomic(d.get(), "config.json", content, 0644, tmp.path());
    return tmp / "config.json";
  }
  static std::vector<std::string> rbd_ls(const std::string& mons) {
    return {"--id", "admin", "-m", mons, "ls"};
  }
  netns::test::TempDir tmp;
  Environment env;
};

TEST_F(ShimRoute, AHeldClustersCommandGoesToItsHolder) {
  Route r = route(Tool::rbd, rbd_ls("198.18.0.2"), env);
  EXPECT_TRUE(r.held);
  EXPECT_EQ(r.cluster_id, "ceph-a");
  EXPECT_EQ(r.holder_path, tmp / "ceph-a.net.ns");
  ASSERT_TRUE(r.source);
  EXPECT_EQ(r.source->kind, ex::Source::Kind::path);
  EXPECT_EQ(r.source->path, tmp / "ceph-a.net.ns");
  // Same monitors under a second ID (a radosNamespace): the first held one.
  EXPECT_EQ(r.also, std::vector<std::string>{});
  Route both = route(Tool::rbd, rbd_ls("198.18.0.1:6789"), env);
  EXPECT_EQ(both.cluster_id, "ceph-a");
  EXPECT_EQ(both.also, std::vector<std::string>{"ceph-a-tenant"});
  env.held = std::vector<std::string>{"ceph-a-tenant"};
  EXPECT_EQ(route(Tool::rbd, rbd_ls("198.18.0.1:6789"), env).cluster_id, "ceph-a-tenant");
}

TEST_F(ShimRoute, TheConfigsNetNamespaceFilePathWins) {
  Route r = route(Tool::rbd, rbd_ls("v2:198.18.1.1:3300"), env);
  EXPECT_TRUE(r.held);
  EXPECT_EQ(r.cluster_id, "ceph-b");
  EXPECT_EQ(r.holder_path, "/configured/ceph-b.net.ns");
  ASSERT_TRUE(r.source);
  EXPECT_EQ(r.source->kind, ex::Source::Kind::cluster);
  // Only for its kind: mount.ceph reads cephFS, which has none.
  Route fs = route(Tool::mount_ceph, {"198.18.1.1:/", "/mnt", "-o", "name=admin"}, env);
  EXPECT_EQ(fs.holder_path, tmp / "ceph-b.net.ns");
}

TEST_F(ShimRoute, TheHoldersSocketWhenItPublishesOne) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = tmp / "ceph-c.net.sock";
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  path.copy(addr.sun_path, path.size());
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  Route r = route(Tool::rbd, rbd_ls("198.18.2.1:3300"), env);
  ::close(s);
  EXPECT_EQ(r.holder_path, path);
}

TEST_F(ShimRoute, UnheldUnknownOrNoMonitorsPassThrough) {
  env.held = std::vector<std::string>{"ceph-b"};
  Route unheld = route(Tool::rbd, rbd_ls("198.18.0.1"), env);
  EXPECT_FALSE(unheld.held);
  EXPECT_EQ(unheld.cluster_id, "ceph-a");
  EXPECT_FALSE(unheld.source);
  EXPECT_NE(unheld.why.find("NETNS_EXEC_HELD_CLUSTERS"), std::string::npos) << unheld.why;
  Route unknown = route(Tool::rbd, rbd_ls("198.18.9.9:6789"), env);
  EXPECT_FALSE(unknown.held);
  EXPECT_EQ(unknown.cluster_id, "");
  env.held = std::vector<std::string>{};  // set and empty: nothing is held
  EXPECT_FALSE(route(Tool::rbd, rbd_ls("v2:198.18.1.1"), env).held);
  // No monitors: the config is not even read.
  env.config = tmp / "missing.json";
  Route version = route(Tool::rbd, {"--version"}, env);
  EXPECT_FALSE(version.held);
  EXPECT_FALSE(version.monitors.named());
}

TEST_F(ShimRoute, MonitorsAndNoConfigIsARefusalWhenClustersAreDeclaredHeld) {
  env.config = tmp / "missing.json";
  // Nothing declared, nothing to read: nothing is held.
  EXPECT_FALSE(route(Tool::rbd, rbd_ls("198.18.0.1"), env).held);
  env.held = std::vector<std::string>{"ceph-a"};
  EXPECT_THROW(route(Tool::rbd, rbd_ls("198.18.0.1"), env), netns::Error);
  env.held.reset();
  env.config = write("{not json");
  try {
    route(Tool::mount_ceph, {"198.18.0.1:/", "/mnt"}, env);
    ADD_FAILURE() << "no refusal";
  } catch (const netns::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nothing was run"), std::string::npos) << e.what();
  }
}

TEST_F(ShimRoute, HeldClustersFromTheEnvironment) {
  ::setenv("NETNS_EXEC_HELD_CLUSTERS", "ceph-a,,ceph-b", 1);
  ::unsetenv("NETNS_EXEC_HOLDER_DIR");
  Environment e = Environment::from_process(Tool::mount_ceph);
  EXPECT_EQ(e.held, (std::vector<std::string>{"ceph-a", "ceph-b"}));
  EXPECT_EQ(e.holder_dir, "/var/lib/kubelet/plugins/cephfs.csi.ceph.com");
  EXPECT_EQ(Environment::from_process(Tool::rbd).holder_dir,
            "/var/lib/kubelet/plugins/rbd.csi.ceph.com");
  ::setenv("NETNS_EXEC_HELD_CLUSTERS", "ceph-a,../x", 1);
  EXPECT_THROW(Environment::from_process(Tool::rbd), netns::Error);
  ::unsetenv("NETNS_EXEC_HELD_CLUSTERS");
  EXPECT_FALSE(Environment::from_process(Tool::rbd).held);
}

}  // namespace
