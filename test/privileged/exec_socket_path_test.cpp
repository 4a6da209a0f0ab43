// Socket mode through a path: ceph-csi's netNamespaceFilePath and its
// unchanged `nsenter --net=<path>` pointing at a holder's <ID>.net.sock get
// the namespace from the holder over the socket, validated as --socket is.
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>

#include "exec_fixture.hpp"
#include "holder_helpers.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::test::exec {
namespace {

struct ExecSocketPath : ExecFixture {};

TEST_F(ExecSocketPath, NsenterRunAndConfigReachTheHolderThroughItsSocket) {
  holder_test::Holder holder(holder_dir, "ceph-s", {"--socket"});
  ASSERT_TRUE(holder.wait_ready()) << holder.err();
  const std::string sock = holder_dir + "/ceph-s.net.sock";
  const std::string expect = "net:[" + std::to_string(holder.ns_id().ino) + "]\n";

  // ceph-csi's nsenter call, unchanged.
  std::string nsenter = tmp / "nsenter";
  ASSERT_EQ(::symlink(NETNS_EXEC_BIN, nsenter.c_str()), 0);
  auto via_nsenter = run_command({nsenter, "--net=" + sock, "--", "readlink", "/proc/self/ns/net"});
  EXPECT_TRUE(via_nsenter.ok()) << via_nsenter.describe();
  EXPECT_EQ(via_nsenter.out, expect);

  auto via_run = exec({"run", "--netns", sock, "--", "readlink", "/proc/self/ns/net"});
  EXPECT_TRUE(via_run.ok()) << via_run.describe();
  EXPECT_EQ(via_run.out, expect);

  std::string cfg =
      config(R"([{"clusterID":"ceph-s","rbd":{"netNamespaceFilePath":")" + sock + R"("}}])");
  auto via_config = exec(
      {"run", "--cluster-id", "ceph-s", "--config", cfg, "--", "readlink", "/proc/self/ns/net"});
  EXPECT_TRUE(via_config.ok()) << via_config.describe();
  EXPECT_EQ(via_config.out, expect);

  // Connected through the opened file, not its name: a path far longer than
  // a sockaddr_un's 108 bytes works.
  std::string deep = tmp.path();
  while (deep.size() < 200) {
    deep += "/a-directory-with-a-long-name";
    ASSERT_EQ(::mkdir(deep.c_str(), 0755), 0);
  }
  ASSERT_EQ(::symlink(sock.c_str(), (deep + "/ceph-s.net.sock").c_str()), 0);
  auto deep_run =
      exec({"run", "--netns", deep + "/ceph-s.net.sock", "--", "readlink", "/proc/self/ns/net"});
  EXPECT_TRUE(deep_run.ok()) << deep_run.describe();
  EXPECT_EQ(deep_run.out, expect);
}

TEST_F(ExecSocketPath, SocketOfAnotherClusterIsRefused) {
  holder_test::Holder holder(holder_dir, "ceph-s", {"--socket"});
  ASSERT_TRUE(holder.wait_ready()) << holder.err();
  const std::string sock = holder_dir + "/ceph-s.net.sock";
  // By file name.
  std::string other = tmp / "ceph-x.net.sock";
  ASSERT_EQ(::symlink(sock.c_str(), other.c_str()), 0);
  expect_refused(exec_touch({"run", "--netns", other}),
                 {"check holder identity", "speaks for cluster \"ceph-s\", not \"ceph-x\""});
  // By the cluster ID asked about, whatever the file is called.
  std::string plain = tmp / "holder-socket";
  ASSERT_EQ(::symlink(sock.c_str(), plain.c_str()), 0);
  std::string cfg =
      config(R"([{"clusterID":"ceph-y","rbd":{"netNamespaceFilePath":")" + plain + R"("}}])");
  expect_refused(exec_touch({"run", "--cluster-id", "ceph-y", "--config", cfg}),
                 {"cluster \"ceph-y\"", "speaks for cluster \"ceph-s\", not \"ceph-y\""});
}

TEST_F(ExecSocketPath, SocketWithoutListenerIsRefusedNamingThePath) {
  const std::string path = holder_dir + "/ceph-q.net.sock";
  {
    // Bound, never listening, closed: the file stays, nobody answers.
    UniqueFd s = make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    ASSERT_LT(path.size(), sizeof addr.sun_path);
    std::memcpy(addr.sun_path, path.data(), path.size());
    ASSERT_EQ(::bind(s.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0)
        << std::strerror(errno);
  }
  auto r = exec_touch({"run", "--netns", path});
  expect_refused(r, {"connect", "\"" + path + "\"", "ECONNREFUSED", "no holder is listening",
                     "cluster \"ceph-q\""});
  std::string nsenter = tmp / "nsenter";
  ASSERT_EQ(::symlink(NETNS_EXEC_BIN, nsenter.c_str()), 0);
  auto n = run_command({nsenter, "--net=" + path, "--", "sh", "-c", "touch " + marker});
  EXPECT_EQ(n.exit_code, 125) << n.describe();
  EXPECT_NE(n.err.find(path), std::string::npos) << n.err;
  EXPECT_FALSE(marker_exists());
}

}  // namespace
}  // namespace netns::test::exec
