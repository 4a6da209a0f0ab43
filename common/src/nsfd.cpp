#include "netns/nsfd.hpp"

#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string_view>

#include "netns/error.hpp"

namespace netns {

namespace {
NsId stat_ns(const char* path) {
  struct stat st {};
  if (::stat(path, &st) != 0) throw Error::sys("stat", path, errno, "is /proc mounted?");
  return NsId{st.st_dev, st.st_ino};
}
}  // namespace

NsId ns_id_of_fd(int fd, std::string_view shown) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error::sys("fstat", shown, errno);
  return NsId{st.st_dev, st.st_ino};
}

NsId require_netns_fd(int fd, std::string_view shown) {
  // Order matters: the filesystem magic first, because NS_GET_NSTYPE's ioctl
  // number could mean something else to a device node or another filesystem.
  struct statfs fs {};
  if (::fstatfs(fd, &fs) != 0) throw Error::sys("fstatfs", shown, errno);
  if (static_cast<unsigned long>(fs.f_type) != NSFS_MAGIC) {
    throw Error(
        Errc::not_a_namespace, quote(shown) + " is not a namespace file (it is not on nsfs)",
        "the path must be a holder's <ID>.net.ns link, /run/netns/NAME or /proc/PID/ns/net");
  }
  int type = ::ioctl(fd, NS_GET_NSTYPE);
  if (type < 0) throw Error::sys("ioctl(NS_GET_NSTYPE)", shown, errno);
  if (type != CLONE_NEWNET) {
    throw Error(
        Errc::wrong_namespace,
        quote(shown) + " is a " + ns_type_name(type) + " namespace, not a network namespace",
        "point it at /proc/PID/ns/net, not another ns/* entry");
  }
  return ns_id_of_fd(fd, shown);
}

std::string ns_text(NsId id, std::string_view type) {
  return std::string(type) + ":[" + std::to_string(id.ino) + "]";
}

std::optional<uint64_t> netns_link_ino(const std::string& link) {
  char text[32];
  ssize_t n = ::readlink(link.c_str(), text, sizeof text);
  constexpr std::string_view kPrefix = "net:[";
  if (n <= static_cast<ssize_t>(kPrefix.size()) + 1 || n >= static_cast<ssize_t>(sizeof text) ||
      std::string_view(text, kPrefix.size()) != kPrefix || text[n - 1] != ']')
    return std::nullopt;
  uint64_t ino = 0;
  for (ssize_t i = static_cast<ssize_t>(kPrefix.size()); i < n - 1; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    ino = ino * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  return ino;
}

NsId current_netns_id() {
  // The link's text, not a stat through it: this runs on every resolve().
  // Every namespace is on the one nsfs, whose device is learned once. The
  // thread's own task directory by number, not through the thread-self link
  // (a lookup less).
  static const dev_t nsfs_dev = stat_ns("/proc/self/ns/net").dev;
  // The thread id, once per thread. A forked child's copy names no task of
  // its own process: the read fails and the stat below answers.
  thread_local const pid_t tid = ::gettid();
  std::string link = "/proc/self/task/" + std::to_string(tid) + "/ns/net";
  if (std::optional<uint64_t> ino = netns_link_ino(link)) return NsId{nsfs_dev, *ino};
  return stat_ns("/proc/thread-self/ns/net");
}
NsId current_pidns_id() { return stat_ns("/proc/self/ns/pid"); }

const char* ns_type_name(int nstype) noexcept {
  switch (nstype) {
    case CLONE_NEWNET:
      return "net";
    case CLONE_NEWNS:
      return "mnt";
    case CLONE_NEWPID:
      return "pid";
    case CLONE_NEWUTS:
      return "uts";
    case CLONE_NEWIPC:
      return "ipc";
    case CLONE_NEWUSER:
      return "user";
    case CLONE_NEWCGROUP:
      return "cgroup";
#ifdef CLONE_NEWTIME
    case CLONE_NEWTIME:
      return "time";
#endif
    default:
      return "unknown";
  }
}

}  // namespace netns
