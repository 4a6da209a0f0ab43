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
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "netns/api.h"
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

NETNS_EXEC_API std::string encode_fd_header(const FdHeader& header);
// Strict: wrong size, magic, version, length, non-zero padding or an invalid
// cluster ID is an Error (protocol or unsupported).
NETNS_EXEC_API FdHeader decode_fd_header(std::string_view bytes);

// Sends without blocking (MSG_DONTWAIT | MSG_NOSIGNAL): a peer that never
// reads cannot stall the sender.
NETNS_EXEC_API void send_fd(int sock, const FdHeader& header, int fd);

// Who sent a message, as the kernel attaches it to each one for a receiver
// that asked (request_sender_identity): not the process that called
// listen() (SO_PEERCRED), which can hand its socket to anyone, but the one
// that called sendmsg.
struct Sender {
  bool known = false;  // SCM_CREDENTIALS arrived
  pid_t pid = 0;       // in our pid namespace; 0 when the sender is not visible in it
  uid_t uid = 0;
  gid_t gid = 0;
  UniqueFd pidfd;  // SCM_PIDFD (Linux 6.5+), for the same process
};

struct ReceivedFd {
  FdHeader header;
  UniqueFd fd;
  Sender sender;
};
// SO_PASSCRED, and SO_PASSPIDFD where the kernel has it, on a socket not yet
// connected: every message then carries its sender's credentials (and a
// pidfd for it). Set before connect, so the holder's one message cannot
// arrive before it.
NETNS_EXEC_API void request_sender_identity(int sock) noexcept;
// One recvmsg with MSG_CMSG_CLOEXEC. Every descriptor that arrives is owned
// (closed on error); exactly one is required. `shown` names the socket path.
NETNS_EXEC_API ReceivedFd receive_fd(int sock, std::string_view shown);

}  // namespace netns
