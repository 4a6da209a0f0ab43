#pragma once
// The addresses a kernel Ceph client in a namespace can be seen from: what a
// fence (ceph osd blocklist, a csi-addons NetworkFence) has to cover for the
// mappings made there. One rule, used by the holder when it publishes them in
// its record, by inspect, and by fence-info for the node's own namespace.
//
// The record carries them as one string (the record is flat JSON): entries
// separated by one space, each ADDRESS/PREFIX%INTERFACE, e.g.
//   "198.18.0.5/20%net1 2001:db8::5/64%net1"
// '%' cannot occur in an interface name (the kernel treats a name with '%' as
// a template and replaces it), and neither can a space, so the form is
// unambiguous.
#include <string>
#include <string_view>
#include <vector>

#include "netns/api.h"

namespace netns {

struct ClientAddress {
  std::string interface;  // the interface the address is on
  std::string address;    // inet_ntop form: "198.18.0.5", "2001:db8::5"
  unsigned prefix = 0;    // the interface's prefix length
  bool ipv6 = false;

  friend bool operator==(const ClientAddress&, const ClientAddress&) = default;
};

// The rule: a client can be seen from an address that is not on a loopback
// interface, not of host scope (127/8, ::1) and not tentative or failed
// duplicate detection (the kernel does not use those as a source). An IPv4
// address of link scope (`ip addr add ... scope link`) counts: the kernel
// takes it as the source of a connection like any other (seen with a TCP
// connect from such a namespace). An IPv6 link-local one (fe80::/10, which
// every interface gets) does not: source selection takes it only toward a
// link-local destination (RFC 6724, rule 2), which no Ceph monitor, NVMe/TCP
// gateway or NFS server of a storage network is.
NETNS_EXEC_API bool is_client_address(bool loopback_interface, bool ipv6, unsigned char scope,
                                      unsigned ifa_flags);

NETNS_EXEC_API std::string format_client_addresses(const std::vector<ClientAddress>& addresses);
// Strict; throws Error(invalid_argument) naming the entry.
NETNS_EXEC_API std::vector<ClientAddress> parse_client_addresses(std::string_view text);

// "198.18.0.5/20" (the interface's network is not the fence's business: a
// fence covers exactly the client's address, /32 or /128).
NETNS_EXEC_API std::string address_cidr(const ClientAddress& a);    // "198.18.0.5/32"
NETNS_EXEC_API std::string interface_cidr(const ClientAddress& a);  // "198.18.0.5/20"

}  // namespace netns
