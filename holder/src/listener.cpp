#include "listener.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "log.hpp"
#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/unix_address.hpp"

namespace netns::holder {

namespace {

bool uid_allowed(uid_t uid, const std::vector<uid_t>& allow_uids) {
  for (uid_t allowed : allow_uids)
    if (uid == allowed) return true;
  return false;
}

std::string uid_list(const std::vector<uid_t>& uids) {
  std::string out;
  for (uid_t u : uids) out += (out.empty() ? "" : ",") + std::to_string(u);
  return out;
}

}  // namespace

Listener publish_listener(int dirfd, const std::string& name, const std::string& dir_shown,
                          const std::vector<uid_t>& allow_uids) {
  // bind(2) has no *at form; /proc/self/fd/N/<name> resolves through our
  // directory descriptor, so the socket still lands in the directory we
  // opened, and the path stays short (sun_path holds 108 bytes).
  std::string tmp = "." + name + "." + std::to_string(::getpid());
  std::string tmp_shown = join_path(dir_shown, tmp);
  UnixAddress addr = unix_address(fd_path(dirfd, tmp), tmp_shown);

  Listener l;
  l.fd = make_socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
  ::unlinkat(dirfd, tmp.c_str(), 0);  // left by a crashed holder that had our pid
  if (::bind(l.fd.get(), addr.get(), addr.len) != 0) throw Error::sys("bind", tmp_shown, errno);
  try {
    bool only_privileged = true;
    for (uid_t u : allow_uids) only_privileged = only_privileged && (u == 0 || u == ::geteuid());
    mode_t mode = only_privileged ? 0600 : 0666;
    if (::fchmodat(dirfd, tmp.c_str(), mode, 0) != 0) throw Error::sys("chmod", tmp_shown, errno);
    struct stat st {};
    if (::fstatat(dirfd, tmp.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      throw Error::sys("stat", tmp_shown, errno);
    l.file = NsId{st.st_dev, st.st_ino};
    if (::listen(l.fd.get(), 64) != 0) throw Error::sys("listen", tmp_shown, errno);
    if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0)
      throw Error::sys("rename", join_path(dir_shown, name), errno);
  } catch (...) {
    ::unlinkat(dirfd, tmp.c_str(), 0);
    throw;
  }
  return l;
}

void serve_one(int listen_fd, const std::vector<uid_t>& allow_uids, const FdHeader& header,
               const std::string& socket_shown) {
  try {
    UniqueFd conn;
    try {
      conn = accept_fd(listen_fd, SOCK_NONBLOCK);
    } catch (const Error& e) {
      // The peer may have gone between poll and accept.
      if (e.sys_errno() == EAGAIN || e.sys_errno() == ECONNABORTED) return;
      throw;
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(conn.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
      throw Error::sys("getsockopt(SO_PEERCRED)", socket_shown, errno);
    if (!uid_allowed(cred.uid, allow_uids)) {
      // The peer's pid is 0 when it lives in a pid namespace we cannot see.
      std::string peer = cred.pid > 0 ? " (pid " + std::to_string(cred.pid) + ")" : "";
      log_warning("refused a connection on " + quote(socket_shown) + " from uid " +
                  std::to_string(cred.uid) + peer + ": allowed uids are " + uid_list(allow_uids) +
                  " (--allow-uid)");
      return;
    }
    // Opened per connection so that no namespace descriptor sits idle in the
    // holder; /proc/thread-self is right even when /proc is another pid
    // namespace's.
    UniqueFd ns = open_fd("/proc/thread-self/ns/net", O_RDONLY);
    send_fd(conn.get(), header, ns.get());
  } catch (const Error& e) {
    log_warning("serving " + quote(socket_shown) + ": " + e.describe());
  } catch (const std::exception& e) {
    log_warning("serving " + quote(socket_shown) + ": " + e.what());
  }
}

}  // namespace netns::holder
