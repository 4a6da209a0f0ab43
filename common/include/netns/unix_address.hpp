#pragma once
// The one way this project names a unix socket. bind(2) and connect(2) take a
// path of at most 107 bytes and have no *at form, so a socket is always named
// through a descriptor: /proc/self/fd/N (an O_PATH descriptor of the socket
// file itself, for connect) or /proc/self/fd/N/NAME (the directory's, for
// bind). Either is short whatever the real path, and resolves through what
// was opened and checked, not through the path again.
#include <sys/socket.h>
#include <sys/un.h>

#include <string>
#include <string_view>

namespace netns {

struct UnixAddress {
  sockaddr_un addr{};
  socklen_t len = 0;
  [[nodiscard]] const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&addr); }
};

// Throws Error(invalid_argument) naming `shown` when `path` is empty or too long.
UnixAddress unix_address(std::string_view path, std::string_view shown);

// "/proc/self/fd/N" or "/proc/self/fd/N/NAME".
std::string fd_path(int fd, std::string_view name = {});

// connect(2) with EINTR retried, bounded by kConnectTimeoutSeconds (set as
// the socket's SO_SNDTIMEO); returns 0 or the errno (ETIMEDOUT: the server
// did not accept in time).
inline constexpr int kConnectTimeoutSeconds = 5;
int connect_unix(int sock, const UnixAddress& address);

}  // namespace netns
