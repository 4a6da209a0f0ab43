#include "netns/kernel_ids.hpp"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/nsfs.h>

#include "netns/fd.hpp"

// The uapi headers of older distributions lack these; the values are the
// kernel's ABI.
#ifndef NS_GET_ID
#define NS_GET_ID _IOR(0xb7, 0xd, uint64_t)
#endif
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446
#endif

namespace netns {

std::optional<uint64_t> namespace_cookie_of_fd(int nsfd) noexcept {
  uint64_t id = 0;
  if (::ioctl(nsfd, NS_GET_ID, &id) != 0 || id == 0) return std::nullopt;
  return id;
}

std::optional<uint64_t> own_netns_cookie() noexcept {
  // Any socket carries its namespace's cookie; an AF_UNIX one needs no
  // network configuration. A kernel without the option is an answer here.
  try {
    UniqueFd sock = make_socket(AF_UNIX, SOCK_DGRAM, 0);
    uint64_t cookie = 0;
    socklen_t len = sizeof cookie;
    if (::getsockopt(sock.get(), SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) != 0 ||
        len != sizeof cookie || cookie == 0)
      return std::nullopt;
    return cookie;
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<uint64_t> pidfs_inode(int pidfd) noexcept {
  struct statfs fs {};
  if (::fstatfs(pidfd, &fs) != 0 || static_cast<unsigned long>(fs.f_type) != PID_FS_MAGIC)
    return std::nullopt;
  struct stat st {};
  if (::fstat(pidfd, &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_ino);
}

}  // namespace netns
