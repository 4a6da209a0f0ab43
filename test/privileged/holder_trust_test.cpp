// The holder applies the trust policy to itself before it publishes: its own
// --dir (and every directory above it) must be root's and not writable by
// others, a lock file it did not create is refused, and the host's network
// namespace is never published. Each refusal has a control that publishes.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "holder_helpers.hpp"
#include "netns/fd.hpp"
#include "netns/nsfd.hpp"
#include "netns/trust.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::exists;
using holder_test::Holder;
using netns::test::Process;
using netns::test::TempDir;
using netns::test::unique_name;

constexpr uid_t kNobody = 65534;

// Starts a holder in a fresh network namespace and returns its exit status
// (it must exit by itself: a refusal).
std::optional<int> refused_status(Holder& h) { return h.process().wait(10s); }

TEST(HolderTrust, RefusesADirectoryOthersCanWrite) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string dir = tmp / "open";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  std::string id = unique_name("tr");
  Holder h(dir, id);
  auto status = refused_status(h);
  ASSERT_TRUE(status.has_value()) << "the holder published in a world-writable directory";
  EXPECT_EQ(holder_test::exit_code(*status), 1) << h.err();
  EXPECT_NE(h.err().find("writable by group or others (mode 0777)"), std::string::npos) << h.err();
  EXPECT_FALSE(exists(dir + "/" + id + ".net.ns"));
  EXPECT_FALSE(exists(dir + "/" + id + ".holder.json"));

  // Control: the same directory made 0755 is published in.
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  Holder ok(dir, id);
  ASSERT_TRUE(ok.wait_ready()) << ok.err();
  EXPECT_TRUE(exists(dir + "/" + id + ".net.ns"));
}

TEST(HolderTrust, RefusesADirectoryBelowAnotherUsersDirectory) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string users = tmp / "users";
  ASSERT_EQ(::mkdir(users.c_str(), 0755), 0);
  ASSERT_EQ(::chown(users.c_str(), kNobody, kNobody), 0);
  std::string dir = users + "/holder";  // root's own, but its parent can be renamed by 65534
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  Holder h(dir, unique_name("tr"));
  auto status = refused_status(h);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 1) << h.err();
  EXPECT_NE(h.err().find("is owned by uid 65534"), std::string::npos) << h.err();
  EXPECT_NE(h.err().find(users), std::string::npos) << "names the directory: " << h.err();
}

TEST(HolderTrust, RefusesALockFileItDoesNotOwn) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string dir = tmp / "h";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  std::string id = unique_name("tr");
  {
    netns::UniqueFd lock = netns::open_fd(dir + "/" + id + ".lock", O_WRONLY | O_CREAT, 0644);
    ASSERT_EQ(::fchown(lock.get(), kNobody, kNobody), 0);
  }
  Holder h(dir, id);
  auto status = refused_status(h);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 1) << h.err();
  EXPECT_NE(h.err().find("lock"), std::string::npos) << h.err();
  EXPECT_NE(h.err().find("owned by uid 65534"), std::string::npos) << h.err();
  EXPECT_FALSE(exists(dir + "/" + id + ".holder.json"));

  // Control: once root owns it, the same lock file is taken.
  ASSERT_EQ(::chown((dir + "/" + id + ".lock").c_str(), 0, 0), 0);
  Holder ok(dir, id);
  ASSERT_TRUE(ok.wait_ready()) << ok.err();
}

TEST(HolderTrust, RefusesToPublishTheHostNetworkNamespace) {
  NETNS_REQUIRE_ROOT();
  // Joined to the host's namespace: ours when we run in it, otherwise init's (ctest may be
  // started inside some other namespace).
  netns::NsId own = netns::current_netns_id();
  std::string host = "/proc/self/ns/net";
  if (netns::trust::is_host_netns(own, own) != netns::trust::HostNetns::yes) {
    host = "/proc/1/ns/net";
    // Only where init's namespace cannot be named either (not our PID namespace's init, or
    // /proc/1 unreadable) is there no host namespace to join: a skip, counted as one.
    struct stat st {};
    if (::stat(host.c_str(), &st) != 0)
      GTEST_SKIP() << "not in the host's network namespace, and " << host << " is unreadable here";
    auto judged = netns::trust::is_host_netns(netns::NsId{st.st_dev, st.st_ino}, own);
    if (judged == netns::trust::HostNetns::unknown)
      GTEST_SKIP()
          << "not in the host's network namespace, and /proc/1 is not the host's init here";
    ASSERT_EQ(judged, netns::trust::HostNetns::yes)
        << "init's network namespace is not judged the host's";
  }
  TempDir tmp;
  std::string dir = tmp / "h";
  std::string id = unique_name("tr");
  // Joined to the host's namespace rather than a fresh one.
  Holder h(dir, id, {}, holder_test::Mode::join, host);
  auto status = refused_status(h);
  ASSERT_TRUE(status.has_value()) << "the holder published the host's namespace";
  EXPECT_EQ(holder_test::exit_code(*status), 4) << h.err();
  EXPECT_NE(h.err().find("host's network namespace"), std::string::npos) << h.err();
  EXPECT_FALSE(exists(dir + "/" + id + ".net.ns"));

  // Control: opted in, it publishes.
  Holder allowed(dir, id, {"--allow-host-netns"}, holder_test::Mode::join, host);
  ASSERT_TRUE(allowed.wait_ready()) << allowed.err();
}

TEST(HolderTrust, CheckFailsOnceTheDirectoryBecomesWritable) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string dir = tmp / "h";
  std::string id = unique_name("tr");
  Holder h(dir, id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  auto check = [&] {
    return netns::test::run_command({"nsenter", "--net=" + h.ns_path(), "--", holder_test::kHolder,
                                     "check", "--cluster-id", id, "--dir", dir},
                                    holder_test::within(10s));
  };
  auto ok = check();
  EXPECT_TRUE(ok.ok()) << ok.describe();
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  auto bad = check();
  EXPECT_EQ(bad.exit_code, 1) << bad.describe();
  EXPECT_NE(bad.err.find("writable by group or others"), std::string::npos) << bad.err;
}

}  // namespace

namespace {

// Socket mode needs no shared pid namespace: a holder that is PID 1 of its
// own pid namespace serves the executor, record and all, whose pid means
// nothing to us (the record's pid namespace is not required for a socket).
TEST(HolderTrust, SocketModeFromAnotherPidNamespacePassesEveryCheck) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string dir = tmp / "h";
  std::string id = unique_name("tr");
  Holder h(dir, id, {"--socket"}, holder_test::Mode::pid1);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  auto r =
      netns::test::run_command({NETNS_EXEC_BIN, "run", "--socket", dir + "/" + id + ".net.sock",
                                "--", "readlink", "/proc/self/ns/net"},
                               holder_test::within(10s));
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, netns::ns_text(h.ns_id()) + "\n");
}

}  // namespace
