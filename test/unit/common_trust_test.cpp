// The pieces of the trust policy that need no privilege: the one unix-socket
// address helper, the file-name suffixes, the ns-id formatter, non-blocking
// reads of user-named files, the findings' shape, and the descriptor checks
// judged on facts (no namespace needed to build them).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/nsfd.hpp"
#include "netns/test/support.hpp"
#include "netns/trust.hpp"
#include "netns/unix_address.hpp"

namespace {

TEST(UnixAddress, AcceptsUpTo107BytesAndNamesThePathOtherwise) {
  auto a = netns::unix_address(std::string(107, 'a'), "shown");
  EXPECT_EQ(a.len, offsetof(sockaddr_un, sun_path) + 108);
  try {
    netns::unix_address(std::string(108, 'a'), "/the/path");
    FAIL() << "a 108-byte path was accepted";
  } catch (const netns::Error& e) {
    EXPECT_EQ(e.code(), netns::Errc::invalid_argument);
    EXPECT_NE(e.message().find("/the/path"), std::string::npos) << e.message();
  }
  EXPECT_THROW(netns::unix_address("", "x"), netns::Error);
  EXPECT_EQ(netns::fd_path(7), "/proc/self/fd/7");
  EXPECT_EQ(netns::fd_path(7, "a.net.sock"), "/proc/self/fd/7/a.net.sock");
}

TEST(HolderFileNames, SuffixesAreDefinedOnce) {
  auto n = netns::holder_file_names("ceph-a");
  EXPECT_EQ(n.ns_link, "ceph-a" + std::string(netns::kLinkSuffix));
  EXPECT_EQ(n.record, "ceph-a.holder.json");
  EXPECT_EQ(netns::cluster_id_from_file_name(n.ns_link, netns::kLinkSuffix), "ceph-a");
  EXPECT_EQ(netns::cluster_id_from_file_name(n.socket, netns::kSocketSuffix), "ceph-a");
  EXPECT_EQ(netns::cluster_id_from_file_name(".net.ns", netns::kLinkSuffix), "");
  EXPECT_EQ(netns::cluster_id_from_file_name("-x.net.ns", netns::kLinkSuffix), "")
      << "not a valid ID";
  EXPECT_EQ(netns::cluster_id_from_file_name("net", netns::kLinkSuffix), "");
}

TEST(NsText, IsWhatReadlinkShows) {
  EXPECT_EQ(netns::ns_text(netns::NsId{4, 4026531833}), "net:[4026531833]");
  EXPECT_EQ(netns::ns_text(netns::NsId{4, 1}, "user"), "user:[1]");
}

TEST(ReadFile, AFifoOrADeviceIsAnErrorAtOnce) {
  netns::test::TempDir tmp;
  const std::string fifo = tmp / "config.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto start = std::chrono::steady_clock::now();
  try {
    netns::read_file(fifo);
    FAIL() << "a FIFO was read";
  } catch (const netns::Error& e) {
    EXPECT_NE(e.message().find("is a FIFO, not a regular file"), std::string::npos) << e.message();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "it blocked";
  try {
    netns::read_file("/dev/zero");
    FAIL() << "/dev/zero was read";
  } catch (const netns::Error& e) {
    EXPECT_NE(e.message().find("character device"), std::string::npos) << e.message();
  }
  // Control: a regular file is read.
  {
    netns::UniqueFd f = netns::open_fd(tmp / "ok", O_WRONLY | O_CREAT, 0644);
    netns::write_all(f.get(), "[]", "ok");
  }
  EXPECT_EQ(netns::read_file(tmp / "ok"), "[]");
}

TEST(Finding, FailureBecomesTheErrorItDescribes) {
  auto f = netns::trust::fail(netns::trust::kLinkOwner, netns::Errc::untrusted, "what", "fix");
  EXPECT_FALSE(f.ok);
  netns::Error e = f.error();
  EXPECT_EQ(e.code(), netns::Errc::untrusted);
  EXPECT_EQ(e.describe(), "what; check: fix");
  EXPECT_STREQ(netns::errc_name(netns::Errc::untrusted), "untrusted");
  EXPECT_TRUE(netns::trust::pass(netns::trust::kLinkOwner, "x").ok);
  const netns::trust::Owners named{{1000, 1001}, "--trust-uid"};
  EXPECT_EQ(named.text(), "root or uid 1000, 1001");
  // A hint names the option that widens the owners only where there is one.
  EXPECT_EQ(named.or_trust("its owner"), ", or name its owner with --trust-uid");
  EXPECT_EQ(netns::trust::Owners{}.or_trust("its owner"), "");
  EXPECT_TRUE(netns::trust::Owners{}.trusted(0));
  EXPECT_FALSE(netns::trust::Owners{}.trusted(1000));
}

// The exemptions for a namespace file no record vouches for, by name: what
// resolve() decides for a holder's record-less link, a file outside any
// holder directory, and the caller's own namespace.
// The descriptor's checks read nothing: each outcome follows from the facts.
TEST(NamespaceFacts, TheChecksJudgeTheFactsAlone) {
  namespace trust = netns::trust;
  trust::NamespaceFacts ns;
  ns.id = netns::NsId{4, 4026532000};
  ns.owner = netns::NsId{4, netns::kInitialUserNsIno};
  ns.cookie = 77;
  EXPECT_TRUE(trust::network_namespace(ns).ok);
  EXPECT_TRUE(trust::initial_user_namespace(ns, "/x", false).ok);

  trust::NamespaceFacts other = ns;
  other.owner.ino = 4026531999;
  trust::Finding f = trust::initial_user_namespace(other, "/x", false);
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.code, netns::Errc::wrong_namespace);
  EXPECT_NE(f.detail.find("user:[4026531999]"), std::string::npos) << f.detail;
  EXPECT_TRUE(trust::initial_user_namespace(other, "/x", true).ok) << "the opt-in";

  trust::NamespaceFacts denied = ns;
  denied.owner_errno = EPERM;
  f = trust::initial_user_namespace(denied, "/x", false);
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.code, netns::Errc::wrong_namespace) << "EPERM: an owner outside ours";
  EXPECT_NE(f.detail.find("ioctl(NS_GET_USERNS) \"/x\""), std::string::npos) << f.detail;

  trust::NamespaceFacts plain;
  plain.not_netns = netns::Error(netns::Errc::not_a_namespace, "\"/x\" is not a namespace file");
  f = trust::network_namespace(plain);
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.code, netns::Errc::not_a_namespace);

  netns::HolderRecord r;
  r.version = 2;
  r.netns_cookie = 77;
  EXPECT_TRUE(trust::namespace_cookie_matches(r, ns, "/r").ok);
  r.netns_cookie = 78;
  f = trust::namespace_cookie_matches(r, ns, "/r");
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.code, netns::Errc::identity_mismatch);
  trust::NamespaceFacts old_kernel = ns;
  old_kernel.cookie.reset();
  f = trust::namespace_cookie_matches(r, old_kernel, "/r");
  EXPECT_TRUE(f.ok);
  EXPECT_FALSE(f.known) << "no NS_GET_ID here: said, not guessed";
}

// The holder's checks read nothing either: each outcome follows from the facts.
TEST(HolderFacts, TheChecksJudgeTheFactsAlone) {
  namespace trust = netns::trust;
  netns::HolderRecord r;
  r.version = 2;
  r.pid = 4242;
  r.pid_start_time = 1000;
  r.netns = netns::NsId{4, 4026532000};
  r.holder_pidfs_ino = 555;
  r.pidns_ino = netns::current_pidns_id().ino;
  trust::HolderFacts h;
  h.start_time = 1000;
  h.netns = r.netns;
  h.pidfs_ino = 555;
  h.lock_pids = std::vector<uint64_t>{4242};
  struct stat lock {};
  lock.st_mode = S_IFREG | 0600;
  EXPECT_TRUE(trust::holder_alive(r, h, "/r").ok);
  EXPECT_TRUE(trust::identity_matches(r, r.netns, h, "/r").ok);
  EXPECT_TRUE(trust::holder_is_recorded_process(r, h, "/r").ok);
  EXPECT_TRUE(trust::lock_held_by_holder(r, h, &lock, "/l").ok);

  auto refused = [&](const trust::Finding& f, netns::Errc code, const std::string& says) {
    EXPECT_FALSE(f.ok) << f.check;
    EXPECT_EQ(f.code, code) << f.check;
    EXPECT_NE(f.detail.find(says), std::string::npos) << f.detail;
  };
  trust::HolderFacts gone = h;
  gone.start_time.reset();
  refused(trust::holder_alive(r, gone, "/r"), netns::Errc::stale_holder, "is gone");
  trust::HolderFacts reused = h;
  reused.start_time = 1001;
  refused(trust::holder_alive(r, reused, "/r"), netns::Errc::stale_holder,
          "was reused by another process (start time 1001, record says 1000)");
  trust::HolderFacts moved = h;
  moved.netns = netns::NsId{4, 4026532001};
  refused(trust::identity_matches(r, r.netns, moved, "/r"), netns::Errc::identity_mismatch,
          "is now in net:[4026532001]");
  refused(trust::identity_matches(r, netns::NsId{4, 1}, h, "/r"), netns::Errc::identity_mismatch,
          "but the file opened net:[1]");
  trust::HolderFacts exited = h;
  exited.netns.reset();
  exited.exited = true;
  refused(trust::identity_matches(r, r.netns, exited, "/r"), netns::Errc::stale_holder, "exited");
  trust::HolderFacts other = h;
  other.pidfs_ino = 556;
  refused(trust::holder_is_recorded_process(r, other, "/r"), netns::Errc::stale_holder,
          "is not the process that wrote the record");
  trust::HolderFacts unlocked = h;
  unlocked.lock_pids = std::vector<uint64_t>{};
  refused(trust::lock_held_by_holder(r, unlocked, &lock, "/l"), netns::Errc::stale_holder,
          "is held by nobody");
  trust::HolderFacts unread = h;
  unread.lock_pids.reset();
  unread.locks_unread = "no /proc/locks";
  trust::Finding f = trust::lock_held_by_holder(r, unread, &lock, "/l");
  EXPECT_TRUE(f.ok);
  EXPECT_FALSE(f.known) << "the table not read: said, not guessed";
  EXPECT_FALSE(trust::lock_held_by_holder(r, h, nullptr, "/l").known) << "no lock file";
}

// read_namespace asks nothing more of what is not on nsfs.
TEST(NamespaceFacts, AFileIsNotANamespace) {
  netns::UniqueFd fd = netns::open_fd("/proc/self/status", O_RDONLY);
  const netns::trust::NamespaceFacts ns =
      netns::trust::read_namespace(fd.get(), "/proc/self/status");
  ASSERT_TRUE(ns.not_netns);
  EXPECT_EQ(ns.not_netns->code(), netns::Errc::not_a_namespace);
  EXPECT_EQ(ns.owner_errno, 0);
  EXPECT_FALSE(ns.cookie);
}

// The chain's judge on hand-made levels: no directory is read, and -1 as the
// descriptor names a failing level relative to the directory.
TEST(DirectoryChain, TheJudgeTakesTheLevelsInOrder) {
  namespace trust = netns::trust;
  auto level = [](uid_t uid, mode_t mode) {
    struct stat st {};
    st.st_uid = uid;
    st.st_mode = S_IFDIR | mode;
    return st;
  };
  trust::DirectoryChain chain;
  chain.levels = {level(0, 0755), level(0, 01777), level(0, 0755)};
  trust::Finding f = trust::directory_chain(chain, -1, "/h", {});
  EXPECT_TRUE(f.ok) << "a sticky, world-writable directory above a root-owned one: " << f.detail;
  EXPECT_STREQ(f.check, trust::kDirTrusted);

  chain.levels[0] = level(0, 01777);
  f = trust::directory_chain(chain, -1, "/h", {});
  EXPECT_FALSE(f.ok) << "the holder directory itself may not be writable, sticky or not";
  EXPECT_NE(f.detail.find("directory \"/h\" is writable by group or others (mode 1777)"),
            std::string::npos)
      << f.detail;

  chain.levels[0] = level(0, 0755);
  chain.levels[2] = level(1000, 0755);
  chain.failed_errno = EACCES;  // a level judged before a stat that failed further up
  f = trust::directory_chain(chain, -1, "/h", {});
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.code, netns::Errc::untrusted);
  EXPECT_NE(f.detail.find("\"/h/../..\" (above \"/h\") is owned by uid 1000, not root"),
            std::string::npos)
      << f.detail;
  // Trusting uid 1000 passes that level; the stat above it is then the refusal.
  f = trust::directory_chain(chain, -1, "/h", trust::Owners{{1000}, "--trust-uid"});
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.code, netns::Errc::system);
  EXPECT_NE(f.detail.find("stat \"/h/../../..\": "), std::string::npos) << f.detail;

  chain.levels.clear();
  f = trust::directory_chain(chain, -1, "/h", {});
  EXPECT_FALSE(f.ok);
  EXPECT_NE(f.detail.find("fstat \"/h\": "), std::string::npos) << f.detail;
  EXPECT_FALSE(trust::directory_chain(trust::DirectoryChain{}, -1, "/h", {}).ok)
      << "a chain never read proves nothing";
}

TEST(DirectoryChain, IsReadUpToOurRoot) {
  const netns::test::TempDir tmp;
  const netns::UniqueFd fd = netns::open_fd(tmp.path(), O_PATH | O_DIRECTORY);
  const netns::trust::DirectoryChain chain = netns::trust::read_directory_chain(fd.get());
  EXPECT_EQ(chain.failed_errno, 0);
  ASSERT_GE(chain.levels.size(), 3u) << "the directory, /tmp and /";
  struct stat root {};
  ASSERT_EQ(::stat("/", &root), 0);
  EXPECT_EQ(chain.levels.back().st_ino, root.st_ino);
  EXPECT_EQ(chain.levels.back().st_dev, root.st_dev);
}

TEST(RecordExemption, EachOutcomeIsANamedFinding) {
  namespace trust = netns::trust;
  // The judge's exemptions: what it finds for a file no record vouches for.
  const auto exemption = [](const trust::Gathered& g, const trust::Policy& p) {
    std::vector<trust::Finding> found = trust::judge(g, p);
    EXPECT_EQ(found.size(), 1u);
    return found.back();
  };
  trust::Gathered link;
  link.path = "/d/ceph-a.net.ns";
  link.dir_shown = "/d";
  link.record_shown = "/d/ceph-a.holder.json";
  link.holders_link = true;
  trust::Policy policy;
  trust::Finding f = exemption(link, policy);
  EXPECT_FALSE(f.ok);
  EXPECT_STREQ(f.check, trust::kRecordPresent);
  EXPECT_EQ(f.code, netns::Errc::not_found);
  EXPECT_NE(f.detail.find("a holder's link must come with its record"), std::string::npos)
      << f.detail;
  policy.identity = "if-present";
  f = exemption(link, policy);
  EXPECT_TRUE(f.ok);
  EXPECT_FALSE(f.known);
  EXPECT_EQ(f.detail, "no \"/d/ceph-a.holder.json\" (if-present)");

  trust::Gathered other;
  other.path = "/run/netns/x";
  other.dir_shown = "/run/netns";
  policy = trust::Policy{};
  f = exemption(other, policy);
  EXPECT_FALSE(f.ok);
  EXPECT_STREQ(f.check, trust::kUnrecordedNetns);
  EXPECT_EQ(f.code, netns::Errc::untrusted);
  EXPECT_NE(f.hint.find("--allow-unrecorded-netns"), std::string::npos) << f.hint;
  other.own_namespace = true;
  f = exemption(other, policy);
  EXPECT_FALSE(f.ok) << "our own namespace, without allow_own_netns";
  policy.allow_own_netns = true;
  f = exemption(other, policy);
  EXPECT_TRUE(f.ok);
  EXPECT_NE(f.detail.find("allow_own_netns"), std::string::npos) << f.detail;
  other.own_namespace = false;
  f = exemption(other, policy);
  EXPECT_FALSE(f.ok) << "allow_own_netns, not our own namespace";
  policy.allow_unrecorded = true;
  f = exemption(other, policy);
  EXPECT_TRUE(f.ok);
  EXPECT_NE(f.detail.find("accepted with allow_unrecorded_netns"), std::string::npos) << f.detail;
}

}  // namespace
