#pragma once
// Links, addresses and routes of a namespace, and the route the kernel would
// pick for a destination (RTM_GETROUTE), read with libnl-route-3 over a
// NETLINK_ROUTE socket that was created inside the namespace
// (netlink_sockets_in_netns). The socket, not the calling thread, decides
// which namespace is read.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netns/unique_fd.hpp"
#include "netns_exec/inspect/ip_address.hpp"

struct nl_sock;

namespace netns::inspect {

struct Link {
  int index = 0;
  std::string name;
  std::string kind;       // rtnetlink "kind": veth, vxlan, bridge, ...; "" for plain devices
  bool up = false;        // IFF_UP: administratively up
  bool lower_up = false;  // IFF_LOWER_UP: carrier
  bool loopback = false;  // IFF_LOOPBACK
  std::string operstate;  // "up", "down", "unknown", ...
  unsigned mtu = 0;
  std::string mac;  // "" when the device has none
  int master = 0;   // ifindex of the bridge/bond it is enslaved to, 0 if none
};

struct Address {
  int index = 0;     // link ifindex
  std::string link;  // link name
  IpAddr addr;
  unsigned prefix = 0;
  std::string scope;  // "global", "link", "host", ...
};

struct Route {
  uint32_t table = 0;  // 254 = main
  int family = 0;
  std::string dst;   // "default" or "198.18.0.0/24"
  std::string type;  // "unicast", "unreachable", "local", ...
  IpAddr gateway;    // empty when on-link
  int oif = 0;
  std::string dev;  // name of oif, "" when none
  IpAddr prefsrc;   // empty when unset
  uint32_t metric = 0;
  std::string protocol;  // "kernel", "boot", "static", ...
  std::string scope;     // "universe", "link", "host", ...
};

class RtnlClient {
 public:
  // Takes a bound NETLINK_ROUTE socket.
  explicit RtnlClient(UniqueFd route_socket);
  ~RtnlClient();
  RtnlClient(const RtnlClient&) = delete;
  RtnlClient& operator=(const RtnlClient&) = delete;

  std::vector<Link> links();
  std::vector<Address> addresses();  // needs links() for names; fetches them itself
  // Routes of every table except `local` (255), IPv4 then IPv6.
  std::vector<Route> routes();
  // What the kernel would do for a packet to `dst`; nullopt when it has no
  // usable route (ENETUNREACH, EHOSTUNREACH: "no route"). Other failures throw.
  std::optional<Route> route_to(const IpAddr& dst);

 private:
  nl_sock* sock_ = nullptr;
};

}  // namespace netns::inspect
