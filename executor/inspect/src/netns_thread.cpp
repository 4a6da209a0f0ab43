#include "netns_exec/inspect/netns_thread.hpp"

#include <linux/netlink.h>
#include <sched.h>
#include <sys/socket.h>

#include <cerrno>
#include <exception>
#include <string>
#include <thread>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/nsfd.hpp"

namespace netns::inspect {

void run_in_netns(int nsfd, std::string_view shown, const std::function<void()>& fn) {
  // Already there (the holder pod's preStop guard reads its own namespace):
  // no thread and no setns, which a container without CAP_SYS_ADMIN, or under
  // a seccomp profile that forbids setns, could not do even for its own
  // namespace.
  if (ns_id_of_fd(nsfd, shown) == current_netns_id()) {
    fn();
    return;
  }
  std::exception_ptr failure;
  // The thread is joined before we return, so references into this frame stay
  // valid; it never returns to anyone else in the namespace it entered.
  std::thread worker([&] {
    try {
      if (::setns(nsfd, CLONE_NEWNET) != 0) {
        throw Error::sys(
            "setns(CLONE_NEWNET)", shown, errno,
            errno == EPERM ? "entering a network namespace needs CAP_SYS_ADMIN" : std::string());
      }
      fn();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  worker.join();
  if (failure) std::rethrow_exception(failure);
}

UniqueFd socket_in_netns(int nsfd, std::string_view shown, int domain, int type, int protocol) {
  UniqueFd sock;
  run_in_netns(nsfd, shown, [&] { sock = make_socket(domain, type, protocol); });
  return sock;
}

namespace {
UniqueFd bound_netlink(int protocol, const char* what) {
  UniqueFd sock = make_socket(AF_NETLINK, SOCK_RAW, protocol);
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;  // nl_pid 0: the kernel assigns a unique port id
  if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0)
    throw Error::sys("bind", what, errno);
  return sock;
}
}  // namespace

NetlinkSockets netlink_sockets_in_netns(int nsfd, std::string_view shown) {
  NetlinkSockets out;
  run_in_netns(nsfd, shown, [&] {
    out.route = bound_netlink(NETLINK_ROUTE, "netlink route socket");
    out.diag = bound_netlink(NETLINK_SOCK_DIAG, "netlink sock_diag socket");
  });
  return out;
}

}  // namespace netns::inspect
