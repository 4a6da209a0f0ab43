#pragma once
// Which TCP sessions are a kernel storage client's, judged by the peer's
// port: Ceph monitors listen on 3300 (msgr2) and 6789 (msgr1), OSDs and MDSs
// bind in 6800-7568 (ms_bind_port_min/max); NVMe/TCP I/O controllers on 4420
// and discovery controllers on 8009 (the IANA ports, what Ceph's NVMe-oF
// gateways use by default); NFS servers on 2049. Every set is configurable
// for deployments that move them. ("Ceph session" in the names below means
// any of them: they hang the same way when their namespace goes.)
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "netns_exec/inspect/sock_diag.hpp"

namespace netns::inspect {

struct PortRange {
  uint16_t first = 0;
  uint16_t last = 0;
  [[nodiscard]] bool contains(uint16_t port) const noexcept {
    return port >= first && port <= last;
  }
  friend bool operator==(const PortRange&, const PortRange&) = default;
};

// "3300,6789", "6800-7568", "3300,6789,6800-7568". Throws
// Error(invalid_argument) naming `what` and quoting the bad part.
std::vector<PortRange> parse_port_ranges(std::string_view text, std::string_view what);
std::string format_port_ranges(const std::vector<PortRange>& ranges);  // same syntax

enum class CephRole { none, mon, osd, nvme, nvme_discovery, nfs };
// "", "mon", "osd/mds", "nvme/tcp", "nvme-discovery", "nfs"
const char* role_name(CephRole role) noexcept;

struct CephPorts {
  std::vector<PortRange> mon{{3300, 3300}, {6789, 6789}};
  std::vector<PortRange> osd{{6800, 7568}};
  std::vector<PortRange> nvme{{4420, 4420}};
  std::vector<PortRange> nvme_discovery{{8009, 8009}};
  std::vector<PortRange> nfs{{2049, 2049}};

  [[nodiscard]] CephRole classify(uint16_t peer_port) const noexcept;
};

// A TCP socket is a Ceph session when its peer port is a Ceph port (the
// kernel client is always the connecting side). Listening and unconnected
// sockets have peer port 0 and never count.
bool is_ceph_session(const InetSocket& s, const CephPorts& ports) noexcept;

// Ceph sessions grouped by peer address:port, in peer order.
struct PeerSessions {
  Endpoint peer;
  CephRole role = CephRole::none;
  size_t established = 0;
  size_t kernel = 0;  // sockets no visible process holds (filled by the caller)
  std::vector<InetSocket> sockets;
};
std::vector<PeerSessions> group_sessions(const std::vector<InetSocket>& sockets,
                                         const CephPorts& ports);

// Established Ceph sessions: what the delete guard waits on.
size_t count_established_sessions(const std::vector<InetSocket>& sockets, const CephPorts& ports);

}  // namespace netns::inspect
