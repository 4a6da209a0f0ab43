#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/fd_passing.hpp"
#include "netns/nsfd.hpp"
#include "netns/test/support.hpp"

TEST(FdHeader, RoundTripsAndIsStrict) {
  netns::FdHeader h;
  h.cluster_id = "ceph-a";
  h.netns = {4, 4026531840};
  std::string bytes = netns::encode_fd_header(h);
  ASSERT_EQ(bytes.size(), netns::FdHeader::kSize);
  EXPECT_EQ(netns::decode_fd_header(bytes), h);

  auto code = [](std::string b) {
    try {
      netns::decode_fd_header(b);
    } catch (const netns::Error& e) {
      return e.code();
    }
    return netns::Errc::system;
  };
  EXPECT_EQ(code(bytes.substr(1)), netns::Errc::protocol);
  std::string b = bytes;
  b[0] = 'X';
  EXPECT_EQ(code(b), netns::Errc::protocol);
  b = bytes;
  b[4] = 2;
  EXPECT_EQ(code(b), netns::Errc::unsupported);
  b = bytes;
  b[6] = 0;
  EXPECT_EQ(code(b), netns::Errc::protocol);
  b = bytes;
  b[87] = 'x';
  EXPECT_EQ(code(b), netns::Errc::protocol);
  b = bytes;
  b[24] = '/';
  EXPECT_EQ(code(b), netns::Errc::protocol);
}

TEST(FdPassing, SendsOneFdWithItsHeaderAndRejectsGarbage) {
  auto pair = netns::make_socketpair(AF_UNIX, SOCK_SEQPACKET, 0);
  auto before = netns::test::open_fds();
  netns::UniqueFd ns = netns::open_fd("/proc/self/ns/net", O_RDONLY);
  netns::FdHeader h;
  h.cluster_id = "c1";
  h.netns = netns::ns_id_of_fd(ns.get(), "self");
  netns::send_fd(pair.first.get(), h, ns.get());
  ns.reset();
  {
    auto got = netns::receive_fd(pair.second.get(), "test.sock");
    EXPECT_EQ(got.header, h);
    EXPECT_EQ(netns::require_netns_fd(got.fd.get(), "received"), h.netns);
    EXPECT_TRUE(fcntl(got.fd.get(), F_GETFD) & FD_CLOEXEC);
  }
  // Garbage without an fd.
  ASSERT_EQ(send(pair.first.get(), "hello", 5, 0), 5);
  EXPECT_THROW(netns::receive_fd(pair.second.get(), "test.sock"), netns::Error);
  // Peer closed.
  pair.first.reset();
  try {
    netns::receive_fd(pair.second.get(), "test.sock");
    FAIL();
  } catch (const netns::Error& e) {
    EXPECT_NE(std::string(e.what()).find("test.sock"), std::string::npos) << e.what();
  }
  auto after = netns::test::open_fds();
  // The socketpair's first end was closed; everything received was closed too.
  EXPECT_EQ(after.size() + 1, before.size());
}
