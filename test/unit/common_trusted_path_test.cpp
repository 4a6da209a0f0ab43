// The walk of every hop (netns/trusted_path.hpp) on what needs no
// privilege: symlinks followed by hand (relative, absolute, with ".."), the
// kernel's hop limit, a missing component, and the rule for a directory on
// the way (writable: refused; sticky or read-only: fine). Owners are root
// and the caller, so it runs as any user; who owns what is the privileged
// tests' (trust_every_hop_test.cpp, the fault matrix).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"
#include "netns/trusted_path.hpp"

namespace {

using netns::test::TempDir;
namespace trust = netns::trust;

trust::Owners caller() {
  trust::Owners o;
  if (::geteuid() != 0) o.uids.push_back(::geteuid());
  return o;
}

void touch(const std::string& path) { netns::open_fd(path, O_WRONLY | O_CREAT, 0644); }
void ln(const std::string& target, const std::string& path) {
  ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path;
}

struct TrustedPath : ::testing::Test {
  void SetUp() override { ASSERT_EQ(::chmod(tmp.path().c_str(), 0755), 0); }
  trust::Finding walk(const std::string& path, trust::WalkedPath* out,
                      bool judge_entry_dir = false) {
    trust::WalkOptions options;
    options.judge_entry_dir = judge_entry_dir;
    return trust::walk_path(path, caller(), options, out);
  }
  TempDir tmp;
};

TEST_F(TrustedPath, FollowsEverySymlinkByHandToWhatTheKernelWouldOpen) {
  ASSERT_EQ(::mkdir((tmp / "a").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((tmp / "a/b").c_str(), 0755), 0);
  touch(tmp / "a/b/file");
  ln("a/../a/b", tmp / "rel");      // relative, through ".."
  ln(tmp / "rel", tmp / "abs");     // absolute, to another link
  ln("abs/./file", tmp / "entry");  // the entry: a link whose text has "."
  trust::WalkedPath w;
  trust::Finding f = walk(tmp / "entry", &w);
  ASSERT_TRUE(f.ok) << f.detail;
  ASSERT_TRUE(w.found);
  struct stat want {};
  ASSERT_EQ(::stat((tmp / "entry").c_str(), &want), 0);
  EXPECT_EQ(w.target_st.st_ino, want.st_ino);
  EXPECT_TRUE(S_ISLNK(w.entry.st_mode));
  EXPECT_EQ(w.name, "entry");
  // The holder directory is the entry's own, not where the links led.
  struct stat dir {};
  ASSERT_EQ(::fstat(w.dir.get(), &dir), 0);
  struct stat tmp_st {};
  ASSERT_EQ(::stat(tmp.path().c_str(), &tmp_st), 0);
  EXPECT_EQ(dir.st_ino, tmp_st.st_ino);
}

TEST_F(TrustedPath, StopsAfterFortySymlinksAsTheKernelDoes) {
  touch(tmp / "l0");
  for (int i = 1; i <= 41; ++i) ln("l" + std::to_string(i - 1), tmp / ("l" + std::to_string(i)));
  trust::WalkedPath w;
  EXPECT_TRUE(walk(tmp / "l40", &w).ok);  // the entry and 39 more: 40 followed
  EXPECT_TRUE(w.found);
  EXPECT_EQ(::access((tmp / "l40").c_str(), F_OK), 0) << "the kernel follows 40 too";
  try {
    (void)walk(tmp / "l41", &w);
    FAIL() << "41 symlinks were followed";
  } catch (const netns::Error& e) {
    EXPECT_EQ(e.sys_errno(), ELOOP) << e.describe();
    EXPECT_NE(e.message().find(tmp / "l41"), std::string::npos) << e.message();
  }
}

TEST_F(TrustedPath, AMissingComponentIsNotFoundNotAFailure) {
  trust::WalkedPath w;
  trust::Finding f = walk(tmp / "none/x", &w);
  EXPECT_TRUE(f.ok) << f.detail;
  EXPECT_FALSE(w.found);
  ln(tmp / "gone", tmp / "dangling");
  f = walk(tmp / "dangling", &w);
  EXPECT_TRUE(f.ok) << f.detail;
  EXPECT_FALSE(w.found);
  f = walk(tmp / "none", &w);
  EXPECT_TRUE(f.ok && !w.found) << f.detail;
}

TEST_F(TrustedPath, AWritableDirectoryOnTheWayIsRefusedAStickyOneIsNot) {
  ASSERT_EQ(::mkdir((tmp / "open").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((tmp / "open/d").c_str(), 0755), 0);
  touch(tmp / "open/d/file");
  ASSERT_EQ(::chmod((tmp / "open").c_str(), 0777), 0);
  trust::WalkedPath w;
  trust::Finding f = walk(tmp / "open/d/file", &w);
  EXPECT_FALSE(f.ok);
  EXPECT_STREQ(f.check, trust::kEveryHop);
  EXPECT_EQ(f.code, netns::Errc::untrusted);
  EXPECT_NE(f.detail.find("directory \"" + tmp / "open\""), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("writable by group or others"), std::string::npos) << f.detail;
  // Through a link to it: the same directory, named as the walk met it.
  ln(tmp / "open/d", tmp / "via");
  f = walk(tmp / "via/file", &w);
  EXPECT_FALSE(f.ok);
  EXPECT_NE(f.detail.find("on the way to"), std::string::npos) << f.detail;
  ASSERT_EQ(::chmod((tmp / "open").c_str(), 01777), 0);
  EXPECT_TRUE(walk(tmp / "open/d/file", &w).ok);
  // The entry's own directory: judged only when asked (a config's), not
  // for a holder directory (directory_chain's, which is stricter).
  ASSERT_EQ(::chmod((tmp / "open/d").c_str(), 0777), 0);
  EXPECT_TRUE(walk(tmp / "open/d/file", &w).ok);
  EXPECT_FALSE(walk(tmp / "open/d/file", &w, true).ok);
}

TEST_F(TrustedPath, OpensATrustedRegularFileOrSaysWhyNot) {
  touch(tmp / "config.json");
  EXPECT_TRUE(trust::open_trusted_regular(tmp / "config.json", caller()));
  try {
    (void)trust::open_trusted_regular(tmp / "absent.json", caller());
    FAIL() << "opened a missing file";
  } catch (const netns::Error& e) {
    EXPECT_EQ(e.sys_errno(), ENOENT);
  }
  ASSERT_EQ(::mkfifo((tmp / "fifo").c_str(), 0644), 0);
  EXPECT_THROW((void)trust::open_trusted_regular(tmp / "fifo", caller()), netns::Error);
}

}  // namespace
