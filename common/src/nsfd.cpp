#include "netns/nsfd.hpp"

#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <cerrno>

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
    throw Error(Errc::not_a_namespace,
                quote(shown) + " is not a namespace file (it is not on nsfs)",
                "the path must be a holder's <ID>.net.ns link, /run/netns/NAME or /proc/PID/ns/net");
  }
  int type = ::ioctl(fd, NS_GET_NSTYPE);
  if (type < 0) throw Error::sys("ioctl(NS_GET_NSTYPE)", shown, errno);
  if (type != CLONE_NEWNET) {
    throw Error(Errc::wrong_namespace,
                quote(shown) + " is a " + ns_type_name(type) +
                    " namespace, not a network namespace",
                "point it at /proc/PID/ns/net, not another ns/* entry");
  }
  return ns_id_of_fd(fd, shown);
}

std::string ns_text(NsId id, std::string_view type) {
  return std::string(type) + ":[" + std::to_string(id.ino) + "]";
}

NsId current_netns_id() { return stat_ns("/proc/thread-self/ns/net"); }
NsId current_pidns_id() { return stat_ns("/proc/self/ns/pid"); }

const char* ns_type_name(int nstype) noexcept {
  switch (nstype) {
    case CLONE_NEWNET: return "net";
    case CLONE_NEWNS: return "mnt";
    case CLONE_NEWPID: return "pid";
    case CLONE_NEWUTS: return "uts";
    case CLONE_NEWIPC: return "ipc";
    case CLONE_NEWUSER: return "user";
    case CLONE_NEWCGROUP: return "cgroup";
#ifdef CLONE_NEWTIME
    case CLONE_NEWTIME: return "time";
#endif
    default: return "unknown";
  }
}

}  // namespace netns
