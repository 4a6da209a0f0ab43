#include "netns_exec/inspect/ceph_ports.hpp"

#include <netinet/tcp.h>

#include <charconv>
#include <map>

#include "netns/error.hpp"
#include "netns/join.hpp"

namespace netns::inspect {

namespace {
uint16_t parse_port(std::string_view text, std::string_view what, std::string_view whole) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v == 0 || v > 65535)
    throw Error(Errc::invalid_argument,
                std::string(what) + " " + quote(whole) + ": " + quote(text) +
                    " is not a port from 1 to 65535",
                "write ports and ranges separated by commas, e.g. 3300,6789,6800-7568");
  return static_cast<uint16_t>(v);
}
}  // namespace

std::vector<PortRange> parse_port_ranges(std::string_view text, std::string_view what) {
  std::vector<PortRange> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    size_t dash = item.find('-');
    PortRange r;
    if (dash == std::string_view::npos) {
      r.first = r.last = parse_port(item, what, text);
    } else {
      r.first = parse_port(item.substr(0, dash), what, text);
      r.last = parse_port(item.substr(dash + 1), what, text);
      if (r.last < r.first)
        throw Error(Errc::invalid_argument, std::string(what) + " " + quote(text) + ": range " +
                                                quote(item) + " is backwards");
    }
    out.push_back(r);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::string format_port_ranges(const std::vector<PortRange>& ranges) {
  return join(ranges, ",", [](const PortRange& r) {
    return std::to_string(r.first) + (r.last != r.first ? "-" + std::to_string(r.last) : "");
  });
}

const char* role_name(CephRole role) noexcept {
  switch (role) {
    case CephRole::mon:
      return "mon";
    case CephRole::osd:
      return "osd/mds";
    case CephRole::nvme:
      return "nvme/tcp";
    case CephRole::nvme_discovery:
      return "nvme-discovery";
    case CephRole::nfs:
      return "nfs";
    case CephRole::none:
      break;
  }
  return "";
}

CephRole CephPorts::classify(uint16_t peer_port) const noexcept {
  for (const auto& r : mon)
    if (r.contains(peer_port)) return CephRole::mon;
  for (const auto& r : osd)
    if (r.contains(peer_port)) return CephRole::osd;
  for (const auto& r : nvme)
    if (r.contains(peer_port)) return CephRole::nvme;
  for (const auto& r : nvme_discovery)
    if (r.contains(peer_port)) return CephRole::nvme_discovery;
  for (const auto& r : nfs)
    if (r.contains(peer_port)) return CephRole::nfs;
  return CephRole::none;
}

bool is_ceph_session(const InetSocket& s, const CephPorts& ports) noexcept {
  return s.proto == Proto::tcp && s.state != TCP_LISTEN && s.remote.port != 0 &&
         ports.classify(s.remote.port) != CephRole::none;
}

std::vector<PeerSessions> group_sessions(const std::vector<InetSocket>& sockets,
                                         const CephPorts& ports) {
  std::map<Endpoint, PeerSessions> by_peer;
  for (const auto& s : sockets) {
    if (!is_ceph_session(s, ports)) continue;
    auto& g = by_peer[s.remote];
    g.peer = s.remote;
    g.role = ports.classify(s.remote.port);
    if (s.state == TCP_ESTABLISHED) ++g.established;
    g.sockets.push_back(s);
  }
  std::vector<PeerSessions> out;
  out.reserve(by_peer.size());
  for (auto& [peer, g] : by_peer) out.push_back(std::move(g));
  return out;
}

size_t count_established_sessions(const std::vector<InetSocket>& sockets, const CephPorts& ports) {
  size_t n = 0;
  for (const auto& s : sockets)
    if (s.state == TCP_ESTABLISHED && is_ceph_session(s, ports)) ++n;
  return n;
}

}  // namespace netns::inspect
