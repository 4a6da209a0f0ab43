// netns-holder --socket: the namespace fd over SCM_RIGHTS, gated by SO_PEERCRED.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "holder_helpers.hpp"
#include "netns/fd_passing.hpp"
#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::Holder;
using netns::test::TempDir;
using netns::test::unique_name;

constexpr uid_t kNobody = 65534;

netns::UniqueFd connect_to(const std::string& path) {
  auto sock = netns::make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    throw std::runtime_error("socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    throw netns::Error::sys("connect", path, errno);
  return sock;
}

// Connects as `uid` from a forked child; returns the inode of the namespace
// it received, 0 when the holder closed without sending, -1 on other errors.
long long inode_received_as(uid_t uid, const std::string& path) {
  netns::Pipe result = netns::make_pipe();
  pid_t pid = ::fork();
  if (pid == 0) {
    long long ino = -1;
    if (::setresgid(uid, uid, uid) == 0 && ::setresuid(uid, uid, uid) == 0) {
      try {
        auto sock = connect_to(path);
        ino = static_cast<long long>(netns::receive_fd(sock.get(), path).header.netns.ino);
        // The header's inode must be the descriptor's.
      } catch (const netns::Error& e) {
        ino = e.code() == netns::Errc::protocol ? 0 : -1;
      }
    }
    (void)!::write(result.write.get(), &ino, sizeof ino);
    ::_exit(0);
  }
  result.write.reset();
  long long ino = -2;
  (void)!::read(result.read.get(), &ino, sizeof ino);
  ::waitpid(pid, nullptr, 0);
  return ino;
}

TEST(HolderSocket, AllowedUidGetsTheHoldersNamespaceFd) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("sock");
  Holder h(tmp.path(), id, {"--socket"});
  ASSERT_TRUE(h.wait_ready()) << h.err();

  std::string path = tmp / (id + ".net.sock");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "only root is allowed, so only root may connect";

  auto sock = connect_to(path);
  netns::ReceivedFd got = netns::receive_fd(sock.get(), path);
  netns::NsId ns = netns::require_netns_fd(got.fd.get(), path);
  EXPECT_EQ(ns, h.ns_id());
  EXPECT_EQ(got.header.netns, ns);
  EXPECT_EQ(got.header.cluster_id, id);

  auto record = netns::parse_record(netns::read_file(tmp / (id + ".holder.json")), "record");
  EXPECT_EQ(record.socket, std::optional<std::string>(id + ".net.sock"));
  EXPECT_EQ(record.netns, ns);
  // Not PID 1 of a pid namespace: the link is published too.
  EXPECT_EQ(netns::test::ns_id_of_path(tmp / (id + ".net.ns")), ns);

  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_FALSE(holder_test::exists(path));
}

TEST(HolderSocket, ChecksThePeerUidAgainstAllowUid) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0755), 0);
  std::string id = unique_name("uid");
  Holder h(tmp.path(), id, {"--socket", "--allow-uid", std::to_string(kNobody)});
  ASSERT_TRUE(h.wait_ready()) << h.err();
  std::string path = tmp / (id + ".net.sock");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u) << "a non-root uid is allowed, so it must be able to connect";

  EXPECT_EQ(inode_received_as(kNobody, path), static_cast<long long>(h.ns_id().ino));
  // Root is not in --allow-uid: the connection is closed without an fd.
  EXPECT_EQ(inode_received_as(0, path), 0);
  EXPECT_TRUE(netns::test::wait_until(
      [&] { return h.err().find("refused a connection") != std::string::npos; }, 5s))
      << h.err();
  EXPECT_NE(h.err().find("uid 0"), std::string::npos) << h.err();
  EXPECT_EQ(inode_received_as(1234, path), 0);
  EXPECT_TRUE(h.process().running());
}

TEST(HolderSocket, ClientsThatNeverReadDoNotBlockTheHolder) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("idle");
  Holder h(tmp.path(), id, {"--socket"});
  ASSERT_TRUE(h.wait_ready()) << h.err();
  std::string path = tmp / (id + ".net.sock");

  std::vector<netns::UniqueFd> idle;
  for (int i = 0; i < 50; ++i) idle.push_back(connect_to(path));  // connect, never read
  auto sock = connect_to(path);
  EXPECT_EQ(netns::receive_fd(sock.get(), path).header.netns, h.ns_id());

  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value()) << "the holder did not stop on SIGTERM";
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
}

}  // namespace
