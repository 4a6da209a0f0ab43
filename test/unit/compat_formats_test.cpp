// Releases that read each other: the holder is upgraded rarely, netns-exec with
// every plugin upgrade, so every netns-exec must read the files of an older
// holder release and refuse a newer format clearly. The fixtures are files a
// version-1 holder wrote (test/fixtures/compat/v1/README.md); they are never
// regenerated, so this test holds every later reader to them.
#include <fcntl.h>
#include <sys/socket.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/fd_passing.hpp"
#include "netns/holder_record.hpp"

namespace {

const std::string kV1 = NETNS_SOURCE_DIR "/test/fixtures/compat/v1";

std::string fixture(const std::string& name) { return netns::read_file(kV1 + "/" + name); }

// Through read_record_at from the directory, as the executor reads a record.
netns::HolderRecord read_v1_record(const std::string& name) {
  netns::UniqueFd dir = netns::open_fd(kV1, O_PATH | O_DIRECTORY);
  auto record = netns::read_record_at(dir.get(), name, kV1 + "/" + name);
  if (!record) throw std::runtime_error(name + " is missing");
  return *record;
}

netns::Error refusal(const std::string& text, const std::string& shown) {
  try {
    netns::parse_record(text, shown);
  } catch (const netns::Error& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << text;
  return netns::Error(netns::Errc::system, "accepted");
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

TEST(compat, ReadsTheV1RecordOfASocketModeHolder) {
  netns::HolderRecord r = read_v1_record("ceph-a.holder.json");
  EXPECT_EQ(r.version, 1u);
  EXPECT_EQ(r.cluster_id, "ceph-a");
  EXPECT_EQ(r.pid, 16751);
  EXPECT_EQ(r.pid_start_time, 52610u);
  EXPECT_EQ(r.netns.dev, 4u);
  EXPECT_EQ(r.netns.ino, 4026532178u);
  EXPECT_EQ(r.pidns_ino, 4026531836u);
  EXPECT_EQ(r.boot_id, "c2cf7d7b-33a3-457c-bb88-31b6c0a25091");
  EXPECT_EQ(r.created_unix, 1796114165u);
  ASSERT_TRUE(r.socket.has_value());
  EXPECT_EQ(*r.socket, "ceph-a.net.sock");
}

TEST(compat, ReadsTheV1RecordOfASymlinkModeHolder) {
  netns::HolderRecord r = read_v1_record("ceph-b.holder.json");
  EXPECT_EQ(r.version, 1u);
  EXPECT_EQ(r.cluster_id, "ceph-b");
  EXPECT_EQ(r.pid, 16668);
  EXPECT_EQ(r.pid_start_time, 52009u);
  EXPECT_EQ(r.netns.ino, 4026532178u);
  EXPECT_FALSE(r.socket.has_value());
}

TEST(compat, ReadsTheV1FdHeader) {
  std::string bytes = fixture("ceph-a.fd_header.bin");
  ASSERT_EQ(bytes.size(), 88u);
  netns::FdHeader h = netns::decode_fd_header(bytes);
  EXPECT_EQ(h.version, 1u);
  EXPECT_EQ(h.cluster_id, "ceph-a");
  EXPECT_EQ(h.netns.dev, 4u);
  EXPECT_EQ(h.netns.ino, 4026532178u);
}

// What a holder of this release would send, over a real SEQPACKET pair with a
// descriptor, as receive_fd() sees it.
TEST(compat, ReceivesTheV1FdHeaderWithItsDescriptor) {
  netns::SocketPair pair = netns::make_socketpair(AF_UNIX, SOCK_SEQPACKET, 0);
  std::string bytes = fixture("ceph-a.fd_header.bin");
  netns::UniqueFd sent = netns::open_fd("/proc/self/ns/net", O_RDONLY);
  netns::FdHeader h = netns::decode_fd_header(bytes);
  netns::send_fd(pair.first.get(), h, sent.get());
  netns::ReceivedFd got = netns::receive_fd(pair.second.get(), "/dir/ceph-a.net.sock");
  EXPECT_EQ(got.header, h);
  EXPECT_TRUE(got.fd);
  // And the encoder of this release still produces those exact bytes for them.
  EXPECT_EQ(netns::encode_fd_header(h), bytes);
}

// A record from a newer holder (a higher version, and a field this release
// does not know) is refused by its version: the message names the file and
// the version found, and the hint says what to do.
TEST(compat, RefusesANewerRecordVersionClearly) {
  std::string v3 = replaced(fixture("ceph-a.holder.json"), "\"version\": 1", "\"version\": 3");
  v3 = replaced(v3, "\"socket\"", "\"netns_id_v3\": 12345, \"socket\"");
  const std::string shown = "/var/lib/kubelet/plugins/rbd.csi.ceph.com/ceph-a.holder.json";
  netns::Error e = refusal(v3, shown);
  EXPECT_EQ(e.code(), netns::Errc::unsupported) << e.describe();
  EXPECT_NE(e.message().find(shown), std::string::npos) << e.describe();
  EXPECT_NE(e.message().find("version 3"), std::string::npos) << e.describe();
  EXPECT_NE(e.message().find("reads versions 1 to 2"), std::string::npos) << e.describe();
  EXPECT_NE(e.hint().find("netns-exec"), std::string::npos) << e.describe();
}

// The records a version-2 holder wrote, with the identities it added.
TEST(compat, ReadsTheV2Records) {
  const std::string v2 = NETNS_SOURCE_DIR "/test/fixtures/compat/v2";
  netns::UniqueFd dir = netns::open_fd(v2, O_PATH | O_DIRECTORY);
  auto a = netns::read_record_at(dir.get(), "ceph-a.holder.json", v2 + "/ceph-a.holder.json");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->version, 2u);
  EXPECT_EQ(a->cluster_id, "ceph-a");
  EXPECT_EQ(a->socket, std::optional<std::string>("ceph-a.net.sock"));
  EXPECT_TRUE(a->holder_pidfs_ino.has_value());
  EXPECT_TRUE(a->netns_cookie.has_value());
  auto b = netns::read_record_at(dir.get(), "ceph-b.holder.json", v2 + "/ceph-b.holder.json");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->cluster_id, "ceph-b");
  EXPECT_EQ(b->socket, std::nullopt);
  EXPECT_EQ(b->pid, 24825);
  EXPECT_EQ(b->holder_pidfs_ino, std::optional<uint64_t>(57270));
  EXPECT_EQ(b->netns_cookie, std::optional<uint64_t>(4145));
  // And this release writes them back byte for byte.
  EXPECT_EQ(netns::serialize_record(*b), netns::read_file(v2 + "/ceph-b.holder.json"));
}

// A version-1 record is read as it was written, with no version-2 identity,
// and a version-1 record carrying a version-2 field is malformed, not read as
// a version 2.
TEST(compat, VersionOneRecordsHaveNoNeverReusedIdentities) {
  netns::HolderRecord r = read_v1_record("ceph-a.holder.json");
  EXPECT_FALSE(r.holder_pidfs_ino.has_value());
  EXPECT_FALSE(r.netns_cookie.has_value());
  std::string mixed =
      replaced(fixture("ceph-a.holder.json"), "\"socket\"", "\"netns_cookie\": 7, \"socket\"");
  netns::Error e = refusal(mixed, "x.holder.json");
  EXPECT_EQ(e.code(), netns::Errc::invalid_argument) << e.describe();
  EXPECT_NE(e.message().find("unknown field \"netns_cookie\""), std::string::npos) << e.describe();
}

TEST(compat, RefusesANewerFdHeaderVersionClearly) {
  std::string v2 = fixture("ceph-a.fd_header.bin");
  uint16_t version = 2;
  std::memcpy(v2.data() + 4, &version, sizeof version);
  netns::SocketPair pair = netns::make_socketpair(AF_UNIX, SOCK_SEQPACKET, 0);
  netns::UniqueFd sent = netns::open_fd("/proc/self/ns/net", O_RDONLY);
  // Raw bytes: this release's send_fd() can only speak version 1.
  iovec iov{v2.data(), v2.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  int fd = sent.get();
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ASSERT_EQ(::sendmsg(pair.first.get(), &msg, 0), static_cast<ssize_t>(v2.size()));

  const std::string shown = "/var/lib/kubelet/plugins/rbd.csi.ceph.com/ceph-a.net.sock";
  try {
    netns::receive_fd(pair.second.get(), shown);
    ADD_FAILURE() << "a version 2 header was accepted";
  } catch (const netns::Error& e) {
    EXPECT_EQ(e.code(), netns::Errc::unsupported) << e.describe();
    EXPECT_NE(e.message().find(shown), std::string::npos) << e.describe();
    EXPECT_NE(e.message().find("version 2"), std::string::npos) << e.describe();
    EXPECT_NE(e.hint().find("netns-exec"), std::string::npos) << e.describe();
  }
}
