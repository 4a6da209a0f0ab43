// The plugin image's overlay (manifests/images/rootfs.sh plugin) works in a
// root file system that is not the build machine's: ceph-csi's
// `nsenter --net=PATH -- CMD` reaches netns-exec through the launcher, with
// netns-exec's own loader and libraries, and runs CMD in the namespace; and
// the ldd check (rootfs.sh check-libraries) passes for the plugin and the
// holder trees and fails when a library is missing.
#include <unistd.h>

#include <string>

#include "netns/test/support.hpp"

namespace {

using namespace netns::test;

std::string link_of(const std::string& path) {
  char buf[128];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

class PluginTree {
 public:
  PluginTree() {
    root_ = tmp_ / "rootfs";
    const std::string script = std::string(NETNS_SOURCE_DIR) + "/manifests/images/rootfs.sh";
    for (const auto& argv : std::vector<std::vector<std::string>>{
             {script, "plugin", root_, NETNS_EXEC_BIN},
             // What the ceph-csi image brings that the launcher and the test use.
             {script, "add-binary", root_, "/bin/sh"},
             {script, "add-binary", root_, "/usr/bin/readlink"},
             // util-linux's nsenter, as in ceph-csi's image: ours must win.
             {script, "add-binary", root_, "/usr/bin/nsenter"},
             {"mkdir", "-p", root_ + "/proc"}}) {
      auto r = run_command(argv);
      if (!r.ok()) throw std::runtime_error(r.describe());
    }
  }

  // Runs `command` chrooted into the tree, with a private /proc mount.
  RunResult run(const std::string& command) const {
    return run_command({"unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                        "mount -t proc proc \"$1/proc\" && exec chroot \"$1\" /bin/sh -c \"$2\"",
                        "plugin", root_, command});
  }

 private:
  TempDir tmp_;
  std::string root_;
};

}  // namespace

TEST(PluginImageTree, NsenterRunsTheCommandInTheNamespace) {
  NETNS_REQUIRE_ROOT();
  PluginTree tree;
  NetnsChild target;
  // A plain /proc/PID/ns/net (no holder here): the in-place forms' opt-in.
  auto r = tree.run("NETNS_EXEC_ALLOW_UNRECORDED_NETNS=1 nsenter --net=" + target.ns_path() +
                    " -- /bin/sh -c 'readlink /proc/self/ns/net; exit 7'");
  EXPECT_EQ(r.exit_code, 7) << r.describe();
  EXPECT_EQ(r.out, link_of(target.ns_path()) + "\n") << r.describe();
}

TEST(PluginImageTree, NsenterRefusesTheCallersOwnNamespace) {
  NETNS_REQUIRE_ROOT();
  PluginTree tree;
  // The bug the project exists for: running the map in the plugin's own
  // namespace. netns-exec refuses it with 125 and says why.
  auto r = tree.run("nsenter --net=/proc/self/ns/net -- /bin/sh -c 'exit 0'");
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_NE(r.err.find("own network namespace"), std::string::npos) << r.err;
}

TEST(PluginImageTree, NetnsExecShadowsUtilLinuxNsenter) {
  NETNS_REQUIRE_ROOT();
  PluginTree tree;
  // The PATH order of ceph-csi's (and most) images.
  auto r = tree.run(
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; "
      "command -v nsenter; nsenter --version; exit 0");
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "/usr/local/bin/nsenter") << r.describe();
  // A call that is not a network entry by file (`--version`) is handed to
  // util-linux's nsenter, the next one on PATH after the drop-in: its
  // version line, nothing of ours.
  EXPECT_NE(r.out.find("nsenter from util-linux"), std::string::npos) << r.describe();
  EXPECT_EQ(r.err, "") << r.describe();
}

namespace {

// The plugin image's tree alone (rootfs.sh plugin), nothing added.
void build_plugin_tree(const std::string& tree) {
  auto built = run_command({std::string(NETNS_SOURCE_DIR) + "/manifests/images/rootfs.sh", "plugin",
                            tree, NETNS_EXEC_BIN});
  if (!built.ok()) throw std::runtime_error(built.describe());
}

// rootfs.sh's ldd check of a tree (chrooted, so only the tree's libraries count).
RunResult check_libraries(const std::string& tree) {
  return run_command(
      {std::string(NETNS_SOURCE_DIR) + "/manifests/images/rootfs.sh", "check-libraries", tree});
}

}  // namespace

// ceph-csi's image build fails on any ldd "not found": every ELF the plugin
// tree adds finds all its libraries in the tree itself. netns-exec links
// libnetns_exec statically, so the library it would otherwise need is no
// file of the image at all.
TEST(PluginImageTree, EveryElfFindsItsLibrariesInTheTree) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  const std::string tree = tmp / "rootfs";
  build_plugin_tree(tree);
  auto r = check_libraries(tree);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("ok /opt/netns-exec/bin/netns-exec\n"), std::string::npos) << r.describe();
  // libmnl, which netns-exec links as a shared library (inspect), is in the tree.
  EXPECT_NE(r.out.find("ok /opt/netns-exec/lib/libmnl.so.0\n"), std::string::npos) << r.describe();
  auto needed = run_command({"readelf", "-d", tree + "/opt/netns-exec/bin/netns-exec"});
  ASSERT_TRUE(needed.ok()) << needed.describe();
  EXPECT_EQ(needed.out.find("libnetns_exec"), std::string::npos) << needed.out;
}

TEST(PluginImageTree, TheLddCheckFailsOnAMissingLibrary) {
  NETNS_REQUIRE_ROOT();
  // The control: the same tree without its libc is refused, by name.
  TempDir tmp;
  const std::string tree = tmp / "rootfs";
  build_plugin_tree(tree);
  ASSERT_EQ(::unlink((tree + "/opt/netns-exec/lib/libc.so.6").c_str()), 0);
  auto r = check_libraries(tree);
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("/opt/netns-exec/bin/netns-exec: a library is missing"), std::string::npos)
      << r.describe();
  EXPECT_NE(r.err.find("libc.so.6"), std::string::npos) << r.describe();
}

TEST(HolderImageTree, EveryElfFindsItsLibrariesInTheTree) {
  NETNS_REQUIRE_ROOT();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The holder image wants the static holder; a sanitizer build links it
  // dynamically (as HolderFootprint.IsStaticallyLinked says), and rootfs.sh
  // refuses it. The main build runs this test.
  GTEST_SKIP()
      << "sanitizer builds link the holder dynamically; the holder image needs the static one";
#endif
  TempDir tmp;
  const std::string tree = tmp / "rootfs";
  auto built = run_command({std::string(NETNS_SOURCE_DIR) + "/manifests/images/rootfs.sh", "holder",
                            tree, NETNS_HOLDER_BIN, NETNS_EXEC_BIN});
  ASSERT_TRUE(built.ok()) << built.describe();
  auto r = check_libraries(tree);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("ok /usr/bin/netns-exec\n"), std::string::npos) << r.describe();
}
