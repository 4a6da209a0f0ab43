#include "netns/fd.hpp"

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "netns/error.hpp"

namespace netns {

UniqueFd open_fd(const std::string& path, int flags, mode_t mode) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) throw Error::sys("open", path, errno);
  return UniqueFd(fd);
}

UniqueFd open_at(int dirfd, const std::string& name, int flags, mode_t mode,
                 std::string_view shown) {
  int fd = ::openat(dirfd, name.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) throw Error::sys("open", shown.empty() ? std::string_view(name) : shown, errno);
  return UniqueFd(fd);
}

std::optional<UniqueFd> open_at_if_exists(int dirfd, const std::string& name, int flags,
                                          std::string_view shown) {
  int fd = ::openat(dirfd, name.c_str(), flags | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error::sys("open", shown.empty() ? std::string_view(name) : shown, errno);
  }
  return UniqueFd(fd);
}

Pipe make_pipe(int extra_flags) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | extra_flags) != 0) throw Error::sys("pipe2", "", errno);
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

UniqueFd make_socket(int domain, int type, int protocol) {
  int fd = ::socket(domain, type | SOCK_CLOEXEC, protocol);
  if (fd < 0) throw Error::sys("socket", "", errno);
  return UniqueFd(fd);
}

SocketPair make_socketpair(int domain, int type, int protocol) {
  int fds[2];
  if (::socketpair(domain, type | SOCK_CLOEXEC, protocol, fds) != 0)
    throw Error::sys("socketpair", "", errno);
  return SocketPair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

UniqueFd accept_fd(int listen_fd, int extra_flags) {
  int fd;
  do {
    fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | extra_flags);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw Error::sys("accept4", "", errno);
  return UniqueFd(fd);
}

UniqueFd dup_fd(int fd) {
  int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) throw Error::sys("fcntl(F_DUPFD_CLOEXEC)", "", errno);
  return UniqueFd(copy);
}

UniqueFd make_signalfd(const sigset_t& mask, int extra_flags) {
  int fd = ::signalfd(-1, &mask, SFD_CLOEXEC | extra_flags);
  if (fd < 0) throw Error::sys("signalfd", "", errno);
  return UniqueFd(fd);
}

UniqueFd make_inotify(int extra_flags) {
  int fd = ::inotify_init1(IN_CLOEXEC | extra_flags);
  if (fd < 0)
    throw Error::sys("inotify_init1", "", errno,
                     "fs.inotify.max_user_instances may be exhausted on this node");
  return UniqueFd(fd);
}

UniqueFd make_pidfd(pid_t pid) {
  // pidfd_open always sets close-on-exec on the new descriptor.
  long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) {
    int err = errno;
    throw Error::sys("pidfd_open", "pid " + std::to_string(pid), err, {},
                     err == ESRCH ? Errc::not_found : Errc::system);
  }
  return UniqueFd(static_cast<int>(fd));
}

std::string read_all(int fd, std::string_view shown, size_t limit) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      // O_NONBLOCK on something that has no data now (a FIFO nobody writes,
      // a terminal): an answer at once rather than a hang.
      if (errno == EAGAIN)
        throw Error::sys("read", shown, errno,
                         "it has no data to read now: is it a FIFO or a terminal?",
                         Errc::invalid_argument);
      throw Error::sys("read", shown, errno);
    }
    if (n == 0) return out;
    if (out.size() + static_cast<size_t>(n) > limit)
      throw Error(Errc::invalid_argument,
                  "read " + quote(shown) + ": larger than " + std::to_string(limit) + " bytes");
    out.append(buf, static_cast<size_t>(n));
  }
}

const char* file_type_name(mode_t mode) noexcept {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symlink";
    default:
      return "a file of unknown type";
  }
}

namespace {
UniqueFd require_regular(UniqueFd fd, std::string_view shown) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error::sys("fstat", shown, errno);
  if (!S_ISREG(st.st_mode))
    throw Error(Errc::invalid_argument,
                quote(shown) + " is " + file_type_name(st.st_mode) + ", not a regular file",
                "name a regular file here");
  return fd;
}
}  // namespace

UniqueFd open_regular_at(int dirfd, const std::string& name, int extra_flags,
                         std::string_view shown) {
  return require_regular(
      open_at(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | extra_flags, 0, shown),
      shown.empty() ? std::string_view(name) : shown);
}

std::optional<UniqueFd> open_regular_at_if_exists(int dirfd, const std::string& name,
                                                  int extra_flags, std::string_view shown) {
  auto fd = open_at_if_exists(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | extra_flags, shown);
  if (!fd) return std::nullopt;
  return require_regular(std::move(*fd), shown.empty() ? std::string_view(name) : shown);
}

std::string read_file(const std::string& path, size_t limit) {
  UniqueFd fd = open_regular_at(AT_FDCWD, path, 0, path);
  return read_all(fd.get(), path, limit);
}

void write_all(int fd, std::string_view data, std::string_view shown) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::sys("write", shown, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace netns
