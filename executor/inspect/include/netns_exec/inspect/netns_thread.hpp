#pragma once
// Working inside a network namespace without spawning and without moving the
// caller: a short-lived std::thread enters the namespace with
// setns(fd, CLONE_NEWNET), creates sockets there and exits. A socket stays
// bound to the namespace it was created in for its whole life, so the caller
// can then query netlink or connect() from its own thread, whose namespace
// never changes. setns(CLONE_NEWNET) is allowed on one thread of a
// multithreaded process; the thread we own is the only one that moves, and it
// dies right after.
#include <functional>
#include <string_view>

#include "netns/unique_fd.hpp"

namespace netns::inspect {

// Runs `fn` on a new thread that first enters the network namespace `nsfd`
// (`shown` names it in errors). Blocks until the thread has finished; an
// exception thrown by `fn` (or by setns) is rethrown here. When `nsfd` is the
// caller's own network namespace, `fn` runs on the caller's thread with no
// setns at all (so it works without CAP_SYS_ADMIN).
void run_in_netns(int nsfd, std::string_view shown, const std::function<void()>& fn);

// socket(domain, type | SOCK_CLOEXEC, protocol) created inside `nsfd`.
UniqueFd socket_in_netns(int nsfd, std::string_view shown, int domain, int type, int protocol);

// The netlink sockets inspect needs, created inside `nsfd` and bound (the
// kernel picks the port id): NETLINK_ROUTE for libnl-route, NETLINK_SOCK_DIAG
// for the socket dump.
struct NetlinkSockets {
  UniqueFd route;
  UniqueFd diag;
};
NetlinkSockets netlink_sockets_in_netns(int nsfd, std::string_view shown);

}  // namespace netns::inspect
