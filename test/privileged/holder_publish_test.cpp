// netns-holder in symlink mode: what it publishes, the lock, stale files, and
// how it withdraws on SIGTERM.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <sstream>

#include "holder_helpers.hpp"
#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"
#include "netns/proc.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::exists;
using holder_test::Holder;
using netns::test::TempDir;
using netns::test::unique_name;

netns::HolderRecord read_record(const std::string& path) {
  return netns::parse_record(netns::read_file(path), path);
}

TEST(HolderPublish, LinkResolvesToTheHoldersNamespaceAndTheRecordMatchesIt) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string dir = tmp / "a/b";  // created with its parents
  std::string id = unique_name("pub");
  Holder h(dir, id);
  ASSERT_TRUE(h.wait_ready()) << h.err();

  netns::NsId holder_ns = h.ns_id();
  EXPECT_NE(holder_ns, netns::current_netns_id()) << "the holder must be in its own namespace";
  EXPECT_EQ(holder_test::read_link(dir + "/" + id + ".net.ns"),
            "/proc/" + std::to_string(h.pid()) + "/ns/net");
  EXPECT_EQ(netns::test::ns_id_of_path(dir + "/" + id + ".net.ns"), holder_ns);

  netns::HolderRecord r = read_record(dir + "/" + id + ".holder.json");
  EXPECT_EQ(r.cluster_id, id);
  EXPECT_EQ(r.pid, h.pid());
  EXPECT_EQ(r.pid_start_time, netns::pid_start_time(h.pid()));
  EXPECT_EQ(r.netns, holder_ns);
  EXPECT_EQ(r.pidns_ino, netns::current_pidns_id().ino);
  EXPECT_EQ(r.boot_id, netns::read_boot_id());
  EXPECT_FALSE(r.socket.has_value());
  EXPECT_FALSE(exists(dir + "/" + id + ".net.sock"));

  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((tmp / "a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(netns::read_file(dir + "/" + id + ".lock"), std::to_string(h.pid()) + "\n");
}

TEST(HolderPublish, SecondHolderForTheSameIdIsRefusedAndNamesTheFirstPid) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("two");
  Holder first(tmp.path(), id);
  ASSERT_TRUE(first.wait_ready()) << first.err();

  auto second = netns::test::run_command(
      {"unshare", "--net", "--", holder_test::kHolder, "--cluster-id", id, "--dir", tmp.path()},
      holder_test::within(10s));
  EXPECT_EQ(second.exit_code, 3) << second.describe();
  EXPECT_NE(second.err.find("pid " + std::to_string(first.pid())), std::string::npos) << second.err;
  EXPECT_EQ(holder_test::line_count(second.err), 1u) << second.err;
  // The first holder's files are untouched.
  EXPECT_EQ(read_record(tmp / (id + ".holder.json")).pid, first.pid());
  EXPECT_EQ(netns::test::ns_id_of_path(tmp / (id + ".net.ns")), first.ns_id());
  EXPECT_TRUE(first.process().running());
}

TEST(HolderPublish, SigtermRemovesItsFilesAndExitsZero) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("term");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  ASSERT_TRUE(exists(tmp / (id + ".net.ns")));

  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_FALSE(exists(tmp / (id + ".net.ns")));
  EXPECT_FALSE(exists(tmp / (id + ".holder.json")));
  // The lock file stays (deleting lock files races); it is not held any more.
  auto lock = netns::open_fd(tmp / (id + ".lock"), O_RDONLY);
  EXPECT_EQ(::flock(lock.get(), LOCK_EX | LOCK_NB), 0);
  EXPECT_NE(h.err().find("received SIGTERM"), std::string::npos) << h.err();
}

TEST(HolderPublish, SigintAlsoStopsCleanly) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("int");
  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  // Other signals are ignored: the holder keeps running after them.
  ::kill(h.pid(), SIGHUP);
  ::kill(h.pid(), SIGUSR1);
  ::kill(h.pid(), SIGPIPE);
  EXPECT_FALSE(netns::test::wait_until([&] { return !h.process().running(); }, 300ms));
  auto status = h.stop(SIGINT);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_FALSE(exists(tmp / (id + ".net.ns")));
}

TEST(HolderPublish, OldHoldersSigtermLeavesANewerHoldersFilesAlone) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("newer");
  Holder old_holder(tmp.path(), id);
  ASSERT_TRUE(old_holder.wait_ready()) << old_holder.err();
  // Someone deleted the lock file (or the directory was recreated): a newer
  // holder can take over the names while the old one still runs.
  ASSERT_EQ(::unlink((tmp / (id + ".lock")).c_str()), 0);
  Holder newer(tmp.path(), id);
  ASSERT_TRUE(newer.wait_ready()) << newer.err();
  ASSERT_EQ(read_record(tmp / (id + ".holder.json")).pid, newer.pid());

  auto status = old_holder.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << old_holder.err();
  EXPECT_EQ(read_record(tmp / (id + ".holder.json")).pid, newer.pid());
  EXPECT_EQ(netns::test::ns_id_of_path(tmp / (id + ".net.ns")), newer.ns_id());
  EXPECT_NE(old_holder.err().find("removed nothing"), std::string::npos) << old_holder.err();
}

TEST(HolderPublish, StaleLinkAndCorruptRecordOfADeadHolderAreReplaced) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("stale");
  // A holder killed with SIGKILL leaves its files behind.
  {
    Holder dead(tmp.path(), id);
    ASSERT_TRUE(dead.wait_ready()) << dead.err();
    dead.stop(SIGKILL);
  }
  ASSERT_TRUE(exists(tmp / (id + ".net.ns")));
  netns::write_file_atomic(netns::open_fd(tmp.path(), O_RDONLY | O_DIRECTORY).get(),
                           id + ".holder.json", "{\"version\": 1, garbage", 0644, tmp.path());

  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  EXPECT_EQ(netns::test::ns_id_of_path(tmp / (id + ".net.ns")), h.ns_id());
  EXPECT_EQ(read_record(tmp / (id + ".holder.json")).pid, h.pid());
  EXPECT_NE(h.err().find("replacing a damaged record"), std::string::npos) << h.err();
  EXPECT_NE(h.err().find("replacing the stale link"), std::string::npos) << h.err();
}

TEST(HolderPublish, ForeignRecordAndStaleSocketAreReplaced) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("foreign");
  netns::HolderRecord foreign;
  foreign.cluster_id = "someone-else";
  foreign.pid = 1;
  foreign.boot_id = "x";
  auto dirfd = netns::open_fd(tmp.path(), O_RDONLY | O_DIRECTORY);
  netns::write_file_atomic(dirfd.get(), id + ".holder.json", netns::serialize_record(foreign), 0644,
                           tmp.path());
  netns::write_file_atomic(dirfd.get(), id + ".net.sock", "not a socket", 0644, tmp.path());
  ASSERT_EQ(::symlinkat("/proc/1/ns/net", dirfd.get(), (id + ".net.ns").c_str()), 0);

  Holder h(tmp.path(), id);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  netns::HolderRecord r = read_record(tmp / (id + ".holder.json"));
  EXPECT_EQ(r.cluster_id, id);
  EXPECT_EQ(r.pid, h.pid());
  EXPECT_EQ(netns::test::ns_id_of_path(tmp / (id + ".net.ns")), h.ns_id());
  EXPECT_FALSE(exists(tmp / (id + ".net.sock")))
      << "symlink mode removes a dead socket-mode holder's socket";
  EXPECT_NE(h.err().find("someone-else"), std::string::npos) << h.err();
}

TEST(HolderPublish, AFailedPublicationLeavesNothingHalfPublished) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("half");
  // A directory where the link should go: the last step (the link) fails
  // after the socket and the record were published.
  ASSERT_EQ(::mkdir((tmp / (id + ".net.ns")).c_str(), 0755), 0);
  auto r = netns::test::run_command({"unshare", "--net", "--", holder_test::kHolder, "--cluster-id",
                                     id, "--dir", tmp.path(), "--socket"},
                                    holder_test::within(10s));
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(holder_test::line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("\"" + tmp / (id + ".net.ns") + "\""), std::string::npos) << r.err;
  EXPECT_FALSE(exists(tmp / (id + ".holder.json")));
  EXPECT_FALSE(exists(tmp / (id + ".net.sock")));
  auto left = netns::test::run_command({"ls", "-A", tmp.path()});
  EXPECT_EQ(left.out, id + ".lock\n" + id + ".net.ns\n") << "no temporary files either";
}

TEST(HolderPublish, RunningHolderHasNoStrayDescriptorsAndPinsNoDirectory) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("fds");
  // Leak a descriptor into the holder on purpose: it must close it.
  auto leaked = netns::open_fd(tmp.path(), O_RDONLY | O_DIRECTORY);
  int raw = ::fcntl(leaked.get(), F_DUPFD, 50);  // without close-on-exec
  ASSERT_GE(raw, 0);
  Holder h(tmp.path(), id, {"--socket"});
  ::close(raw);
  ASSERT_TRUE(h.wait_ready()) << h.err();

  std::string fd_dir = "/proc/" + std::to_string(h.pid()) + "/fd";
  std::vector<std::string> targets;
  for (int fd = 0; fd < 64; ++fd) {
    std::string target = holder_test::read_link(fd_dir + "/" + std::to_string(fd));
    if (!target.empty()) targets.push_back(std::to_string(fd) + " " + target);
  }
  std::string all;
  for (auto& t : targets) all += t + "\n";
  // stdin/stdout/stderr, the directory, the lock, the signalfd, the two
  // rtnetlink sockets that follow the addresses (notifications, dumps), the
  // listening socket.
  ASSERT_EQ(targets.size(), 9u) << all;
  EXPECT_EQ(targets[3], "3 " + tmp.path()) << all;
  EXPECT_EQ(targets[4], "4 " + tmp / (id + ".lock")) << all;
  EXPECT_EQ(targets[5], "5 anon_inode:[signalfd]") << all;
  // The netlink sockets are listed in the namespace's /proc/net/netlink
  // (the last column is the socket inode); the listener is not.
  std::string netlink = netns::read_file("/proc/" + std::to_string(h.pid()) + "/net/netlink");
  for (size_t i = 6; i <= 8; ++i) {
    ASSERT_EQ(targets[i].rfind(std::to_string(i) + " socket:[", 0), 0u) << all;
    std::string ino = targets[i].substr(targets[i].find('[') + 1);
    ino.pop_back();
    bool listed = false;
    std::istringstream lines(netlink);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string word, last;
      while (words >> word) last = word;
      listed = listed || last == ino;
    }
    EXPECT_EQ(listed, i != 8) << targets[i] << "\n" << netlink;
  }
  EXPECT_EQ(holder_test::read_link("/proc/" + std::to_string(h.pid()) + "/cwd"), "/");
}

}  // namespace
