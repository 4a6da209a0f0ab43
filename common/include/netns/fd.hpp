#pragma once
// The only place descriptors are created. Every helper adds close-on-exec
// itself (O_CLOEXEC, SOCK_CLOEXEC, SFD_CLOEXEC, IN_CLOEXEC, F_DUPFD_CLOEXEC)
// and throws netns::Error naming the syscall and the path on failure.
#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "netns/unique_fd.hpp"

namespace netns {

// open(2)/openat(2) with O_CLOEXEC added. `shown` is the path used in error
// messages when `path` is relative to `dirfd`.
UniqueFd open_fd(const std::string& path, int flags, mode_t mode = 0);
UniqueFd open_at(int dirfd, const std::string& name, int flags, mode_t mode = 0,
                 std::string_view shown = {});
// Like open_at, but ENOENT is "no such file", not an error.
std::optional<UniqueFd> open_at_if_exists(int dirfd, const std::string& name, int flags,
                                          std::string_view shown = {});

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};
Pipe make_pipe(int extra_flags = 0);  // pipe2(O_CLOEXEC | extra_flags)

UniqueFd make_socket(int domain, int type, int protocol);  // adds SOCK_CLOEXEC
struct SocketPair {
  UniqueFd first;
  UniqueFd second;
};
SocketPair make_socketpair(int domain, int type, int protocol);
UniqueFd accept_fd(int listen_fd, int extra_flags = 0);  // accept4(SOCK_CLOEXEC | extra)
UniqueFd dup_fd(int fd);                                 // F_DUPFD_CLOEXEC, lowest >= 3
UniqueFd make_signalfd(const sigset_t& mask, int extra_flags = 0);
UniqueFd make_inotify(int extra_flags = 0);
UniqueFd make_pidfd(pid_t pid);  // pidfd_open; Errc::not_found when the pid is gone

// Opens a file a user named for reading its content: without blocking and
// without adopting a terminal (O_NONBLOCK|O_NOCTTY), and refuses at once
// anything that is not a regular file (a FIFO, a tty, /dev/zero, a socket,
// a directory) with Errc::invalid_argument naming what it is.
UniqueFd open_regular_at(int dirfd, const std::string& name, int extra_flags,
                         std::string_view shown);
// Like open_regular_at, but ENOENT is "no such file", not an error.
std::optional<UniqueFd> open_regular_at_if_exists(int dirfd, const std::string& name,
                                                  int extra_flags, std::string_view shown);
// "a FIFO", "a character device", ... for an st_mode.
const char* file_type_name(mode_t mode) noexcept;

// Reads a whole (small) file; throws when larger than `limit` bytes.
std::string read_all(int fd, std::string_view shown, size_t limit = 1 << 20);
// A whole regular file (open_regular_at, then read_all).
std::string read_file(const std::string& path, size_t limit = 1 << 20);
// Writes all of `data`, retrying on EINTR and short writes.
void write_all(int fd, std::string_view data, std::string_view shown);

}  // namespace netns
