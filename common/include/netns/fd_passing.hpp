#pragma once
// Socket mode: the holder hands its namespace fd to an allowed peer over a
// SOCK_SEQPACKET unix socket, one message per connection: a fixed-size header
// plus the fd as SCM_RIGHTS. SEQPACKET keeps the header and the fd in one
// record, so a reader can never see a header without its fd or with a
// neighbour's.
//
// Header, 88 bytes, host byte order (both ends are on the same node):
//   0  magic     "NSHD"
//   4  version   u16 = 1
//   6  id_len    u16, 1..64
//   8  netns_dev u64
//  16  netns_ino u64
//  24  cluster_id[64], id_len bytes, the rest zero
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "netns/nsfd.hpp"
#include "netns/unique_fd.hpp"

namespace netns {

struct FdHeader {
  static constexpr uint16_t kVersion = 1;
  static constexpr size_t kSize = 88;

  uint16_t version = kVersion;
  std::string cluster_id;
  NsId netns;

  friend bool operator==(const FdHeader&, const FdHeader&) = default;
};

std::string encode_fd_header(const FdHeader& header);
// Strict: wrong size, magic, version, length, non-zero padding or an invalid
// cluster ID is an Error (protocol or unsupported).
FdHeader decode_fd_header(std::string_view bytes);

// Sends without blocking (MSG_DONTWAIT | MSG_NOSIGNAL): a peer that never
// reads cannot stall the sender.
void send_fd(int sock, const FdHeader& header, int fd);

struct ReceivedFd {
  FdHeader header;
  UniqueFd fd;
};
// One recvmsg with MSG_CMSG_CLOEXEC. Every descriptor that arrives is owned
// (closed on error); exactly one is required. `shown` names the socket path.
ReceivedFd receive_fd(int sock, std::string_view shown);

}  // namespace netns
