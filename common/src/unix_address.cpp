#include "netns/unix_address.hpp"

#include <sys/time.h>

#include <cerrno>
#include <cstring>

#include "netns/error.hpp"

namespace netns {

UnixAddress unix_address(std::string_view path, std::string_view shown) {
  UnixAddress a;
  a.addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof a.addr.sun_path ||
      path.find('\0') != std::string_view::npos)
    throw Error(Errc::invalid_argument, "socket path " + quote(shown) +
                                            " is empty or longer than " +
                                            std::to_string(sizeof a.addr.sun_path - 1) + " bytes");
  std::memcpy(a.addr.sun_path, path.data(), path.size());
  a.len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
  return a;
}

std::string fd_path(int fd, std::string_view name) {
  std::string out = "/proc/self/fd/" + std::to_string(fd);
  if (!name.empty()) {
    out += '/';
    out += name;
  }
  return out;
}

int connect_unix(int sock, const UnixAddress& address) {
  // A listener that stopped accepting (a frozen or stopped holder) with a
  // full backlog makes a blocking connect wait for as long as SO_SNDTIMEO
  // says, which is forever by default: every caller and the exec probe would
  // hang. Bounded, it is an error that names the socket.
  timeval limit{kConnectTimeoutSeconds, 0};
  ::setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  int rc;
  do {
    rc = ::connect(sock, address.get(), address.len);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) return 0;
  return errno == EAGAIN || errno == EINPROGRESS ? ETIMEDOUT : errno;
}

}  // namespace netns
