#include "netns/fd_passing.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"

namespace netns {

namespace {
constexpr char kMagic[4] = {'N', 'S', 'H', 'D'};
constexpr size_t kIdOffset = 24;

template <typename T>
void put(std::string& out, size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof value);
}
template <typename T>
T get(std::string_view in, size_t at) {
  T value;
  std::memcpy(&value, in.data() + at, sizeof value);
  return value;
}

Error protocol_error(const std::string& why) {
  return Error(Errc::protocol, "holder socket sent a bad header: " + why,
               "is the socket really a netns-holder's <ID>.net.sock, of the same release?");
}
}  // namespace

std::string encode_fd_header(const FdHeader& h) {
  validate_cluster_id(h.cluster_id);
  std::string out(FdHeader::kSize, '\0');
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  put<uint16_t>(out, 4, h.version);
  put<uint16_t>(out, 6, static_cast<uint16_t>(h.cluster_id.size()));
  put<uint64_t>(out, 8, h.netns.dev);
  put<uint64_t>(out, 16, h.netns.ino);
  std::memcpy(out.data() + kIdOffset, h.cluster_id.data(), h.cluster_id.size());
  return out;
}

FdHeader decode_fd_header(std::string_view in) {
  if (in.size() != FdHeader::kSize)
    throw protocol_error(std::to_string(in.size()) + " bytes instead of " +
                         std::to_string(FdHeader::kSize));
  if (std::memcmp(in.data(), kMagic, sizeof kMagic) != 0) throw protocol_error("wrong magic");
  FdHeader h;
  h.version = get<uint16_t>(in, 4);
  if (h.version != FdHeader::kVersion)
    throw Error(Errc::unsupported,
                "holder socket speaks header version " + std::to_string(h.version) +
                    ", this build speaks " + std::to_string(FdHeader::kVersion),
                "run the same netns-holder and netns-exec release on this node");
  auto len = get<uint16_t>(in, 6);
  if (len == 0 || len > kMaxClusterIdLength)
    throw protocol_error("cluster ID length " + std::to_string(len));
  for (size_t i = kIdOffset + len; i < FdHeader::kSize; ++i)
    if (in[i] != '\0') throw protocol_error("non-zero padding");
  h.netns.dev = get<uint64_t>(in, 8);
  h.netns.ino = get<uint64_t>(in, 16);
  h.cluster_id.assign(in.data() + kIdOffset, len);
  if (auto problem = cluster_id_problem(h.cluster_id))
    throw protocol_error("invalid cluster ID: " + *problem);
  return h;
}

void send_fd(int sock, const FdHeader& header, int fd) {
  std::string bytes = encode_fd_header(header);
  iovec iov{bytes.data(), bytes.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  ssize_t n;
  do {
    n = ::sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw Error::sys("sendmsg", "holder socket peer", errno);
  if (static_cast<size_t>(n) != bytes.size())
    throw Error(Errc::protocol, "sendmsg: short write to holder socket peer");
}

// The uapi values, for headers older than the kernel (SCM_PIDFD is SO_PASSPIDFD).
#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif

void request_sender_identity(int sock) noexcept {
  int on = 1;
  (void)::setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  (void)::setsockopt(sock, SOL_SOCKET, SO_PASSPIDFD, &on, sizeof on);  // ENOPROTOOPT before 6.5
}

ReceivedFd receive_fd(int sock, std::string_view shown) {
  char buf[FdHeader::kSize + 1];  // one spare byte tells an oversized record
  iovec iov{buf, sizeof buf};
  // Room for a few descriptors, so that a peer sending several cannot make us
  // lose track of (and leak) the extras.
  // And for the sender's credentials and pidfd, when asked for.
  alignas(cmsghdr) char
      control[CMSG_SPACE(sizeof(int) * 8) + CMSG_SPACE(sizeof(ucred)) + CMSG_SPACE(sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0)
    throw Error::sys("recvmsg", shown, errno, "is the netns-holder behind this socket alive?");

  std::vector<UniqueFd> fds;
  Sender sender;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(ucred))) {
      ucred cred{};
      std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
      sender.known = true;
      sender.pid = cred.pid;
      sender.uid = cred.uid;
      sender.gid = cred.gid;
      continue;
    }
    if (c->cmsg_type == SCM_PIDFD && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
      sender.pidfd = UniqueFd(fd);  // a negative value (the sender is gone) stays empty
      continue;
    }
    if (c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      fds.emplace_back(fd);
    }
  }
  try {
    if (n == 0)
      throw Error(Errc::protocol, "the holder closed the connection without sending anything",
                  "is the caller's uid allowed by the holder's netns-holder --allow-uid?");
    if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) throw protocol_error("message truncated");
    FdHeader header = decode_fd_header(std::string_view(buf, static_cast<size_t>(n)));
    if (fds.size() != 1)
      throw protocol_error(std::to_string(fds.size()) + " descriptors instead of 1");
    return ReceivedFd{std::move(header), std::move(fds.front()), std::move(sender)};
  } catch (Error& e) {
    // A newer header version is named with its socket too: the operator must
    // know which holder runs the newer release.
    if (e.code() == Errc::protocol || e.code() == Errc::unsupported) e.context(quote(shown));
    throw;
  }
}

}  // namespace netns
