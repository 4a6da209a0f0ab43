// Transparent mode: the real program behind a shim is the next one of its
// name on PATH after the shim's own directory, never netns-exec itself,
// with directories and programs compared by identity (a /sbin -> /usr/sbin
// symlink, a second link to the shim elsewhere on PATH).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "netns/test/support.hpp"
#include "netns_exec/shim/real_program.hpp"

namespace {

using namespace netns::exec::shim;

struct ShimRealProgram : ::testing::Test {
  void SetUp() override {
    for (const char* d : {"shim", "real", "later", "other"})
      ASSERT_EQ(::mkdir((tmp / d).c_str(), 0755), 0);
    self_path = tmp / "netns-exec";
    program(self_path);
    self = *identity_of(self_path);
    ASSERT_EQ(::symlink(self_path.c_str(), (tmp / "shim/rbd").c_str()), 0);
    program(tmp / "real/rbd");
    program(tmp / "later/rbd");
    // sbin -> shim, the merged-/usr layout's /sbin -> /usr/sbin
    ASSERT_EQ(::symlink((tmp / "shim").c_str(), (tmp / "sbin").c_str()), 0);
  }
  static void program(const std::string& path) {
    std::ofstream(path) << "#!/bin/sh\n";
    ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
  }
  std::string path_of(std::initializer_list<const char*> dirs) const {
    std::string p;
    for (const char* d : dirs)
      p += (p.empty() ? "" : ":") + (d[0] == '/' ? std::string(d) : tmp / d);
    return p;
  }
  netns::test::TempDir tmp;
  std::string self_path;
  FileIdentity self;
};

TEST_F(ShimRealProgram, TakesTheNextOneAfterTheShimsDirectory) {
  // Found by name: the shim's directory is the PATH entry whose rbd is us.
  auto r = find_real_program("rbd", "rbd", path_of({"other", "shim", "real", "later"}), self);
  EXPECT_EQ(r.path, tmp / "real/rbd");
  // An rbd before the shim's directory is not the shim's real program.
  r = find_real_program("rbd", "rbd", path_of({"later", "shim", "real"}), self);
  EXPECT_EQ(r.path, tmp / "real/rbd");
  // By path (mount(8) runs /sbin/mount.ceph): argv[0]'s directory, compared
  // by identity: sbin is the shim directory under another name.
  r = find_real_program("rbd", tmp / "sbin/rbd", path_of({"shim", "real"}), self);
  EXPECT_EQ(r.path, tmp / "real/rbd");
  r = find_real_program("rbd", tmp / "shim/rbd", path_of({"later", "sbin", "real"}), self);
  EXPECT_EQ(r.path, tmp / "real/rbd");
}

TEST_F(ShimRealProgram, NeverItself) {
  // Another link to netns-exec after the shim (a hard link, a symlink) is skipped.
  ASSERT_EQ(::link(self_path.c_str(), (tmp / "other/rbd").c_str()), 0);
  auto r = find_real_program("rbd", "rbd", path_of({"shim", "other", "later"}), self);
  EXPECT_EQ(r.path, tmp / "later/rbd");
  bool said = false;
  for (const auto& why : r.reasons) said |= why.find("netns-exec itself") != std::string::npos;
  EXPECT_TRUE(said) << "explain says why other/rbd was skipped";
  // Only links to us: none found.
  r = find_real_program("rbd", "rbd", path_of({"shim", "other", "sbin"}), self);
  EXPECT_FALSE(r.found());
  EXPECT_FALSE(r.reasons.empty());
}

TEST_F(ShimRealProgram, TheShimsDirectoryOffPathMeansAllOfPath) {
  // mount(8) runs helpers from its own list; PATH need not hold that directory.
  auto r = find_real_program("rbd", tmp / "shim/rbd", path_of({"later", "real"}), self);
  EXPECT_EQ(r.path, tmp / "later/rbd");
}

TEST_F(ShimRealProgram, SkipsWhatIsNotAProgramAndNeverTheCurrentDirectory) {
  ASSERT_EQ(::mkdir((tmp / "other/rbd").c_str(), 0755), 0);  // a directory
  ASSERT_EQ(::chmod((tmp / "real/rbd").c_str(), 0644), 0);   // not executable
  auto r = find_real_program("rbd", "rbd", path_of({"shim", "other", "real", "later"}), self);
  EXPECT_EQ(r.path, tmp / "later/rbd");
  // Empty and relative entries are the current directory: never searched.
  ASSERT_EQ(::chdir((tmp / "real").c_str()), 0);
  ASSERT_EQ(::chmod((tmp / "real/rbd").c_str(), 0755), 0);
  r = find_real_program("rbd", "rbd", path_of({"shim"}) + "::.:real", self);
  EXPECT_FALSE(r.found()) << r.path;
  ASSERT_EQ(::chdir("/"), 0);
}

}  // namespace
