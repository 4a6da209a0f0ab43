#pragma once
// The links and client addresses of one network namespace, read with a raw
// rtnetlink dump (RTM_GETLINK, RTM_GETADDR) over a NETLINK_ROUTE socket: the
// socket's namespace is the one read. No libnl, so the static holder can use
// it; the holder reads its own namespace, fence-info the node's.
#include <string>
#include <string_view>
#include <vector>

#include "netns/client_addresses.hpp"
#include "netns/unique_fd.hpp"

namespace netns {

struct LinkState {
  int index = 0;
  std::string name;
  bool up = false;        // IFF_UP
  bool lower_up = false;  // IFF_LOWER_UP (carrier)
  bool loopback = false;

  friend bool operator==(const LinkState&, const LinkState&) = default;
};

struct NetSnapshot {
  std::vector<LinkState> links;
  std::vector<ClientAddress> client_addresses;  // is_client_address() ones, by link then dump order

  friend bool operator==(const NetSnapshot&, const NetSnapshot&) = default;
};

// A NETLINK_ROUTE socket in the caller's current namespace; `groups` are the
// RTMGRP_* multicast groups to join (0: none, for dumps only).
UniqueFd open_route_socket(unsigned groups, bool nonblocking);

// Dumps links, then addresses, over `route_socket` (one that joined no
// group, so no notification can interleave with the dump). `shown` names the
// namespace in errors.
NetSnapshot read_net_snapshot(int route_socket, std::string_view shown);

// Reads and discards every queued notification on a non-blocking socket that
// joined groups. A lost notification (ENOBUFS, the socket overflowed) is
// discarded too: the caller re-reads the whole state after any wake-up, so
// nothing depends on a notification's content.
void drain_route_socket(int route_socket);

}  // namespace netns
