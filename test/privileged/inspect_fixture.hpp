#pragma once
// A small storage network for the inspect, doctor and guard tests:
//
//   inspected (NetnsChild)                 ceph (NetnsChild)
//   va 198.18.1.1/24  <---- veth ---->     vb 198.18.1.2/24
//   198.19.5.0/24 via 198.18.1.2           lo 198.19.5.10/32  (the "monitor")
//
// Everything lives in the two namespaces this process created; killing the
// NetnsChild processes frees the namespaces and the links in them.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/inspect/ip_address.hpp"
#include "netns_exec/inspect/netns_thread.hpp"

namespace netns::test {

inline constexpr const char* kInspectedAddr = "198.18.1.1";
inline constexpr const char* kCephGateway = "198.18.1.2";
inline constexpr const char* kMonAddr = "198.19.5.10";
inline constexpr const char* kMonNet = "198.19.5.0/24";

inline void must(const RunResult& r, const std::string& what) {
  if (!r.ok()) throw std::runtime_error(what + ": " + r.describe());
}

struct StorageNet {
  NetnsChild inspected;
  NetnsChild ceph;
  std::string va = unique_name("va");
  std::string vb = unique_name("vb");

  StorageNet() {
    must(inspected.run({"ip", "link", "add", va, "type", "veth", "peer", "name", vb, "netns",
                        std::to_string(ceph.pid())}),
         "veth");
    must(inspected.run({"ip", "addr", "add", std::string(kInspectedAddr) + "/24", "dev", va}),
         "addr a");
    must(inspected.run({"ip", "link", "set", va, "up"}), "up a");
    must(ceph.run({"ip", "addr", "add", std::string(kCephGateway) + "/24", "dev", vb}), "addr b");
    must(ceph.run({"ip", "addr", "add", std::string(kMonAddr) + "/32", "dev", "lo"}), "addr mon");
    must(ceph.run({"ip", "link", "set", vb, "up"}), "up b");
    add_route();
  }

  void add_route() const {
    must(inspected.run({"ip", "route", "add", kMonNet, "via", kCephGateway, "dev", va}), "route");
  }
  void del_route() const {
    must(inspected.run({"ip", "route", "del", kMonNet, "via", kCephGateway, "dev", va}),
         "route del");
  }

  [[nodiscard]] UniqueFd inspected_fd() const { return open_fd(inspected.ns_path(), O_RDONLY); }
  [[nodiscard]] UniqueFd ceph_fd() const { return open_fd(ceph.ns_path(), O_RDONLY); }

  // A listening TCP socket in the ceph namespace on kMonAddr:port. The kernel
  // completes handshakes into the backlog, so nobody needs to accept().
  [[nodiscard]] UniqueFd listen_mon(uint16_t port = 6789) const {
    UniqueFd fd = ceph_fd();
    UniqueFd sock = inspect::socket_in_netns(fd.get(), ceph.ns_path(), AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(sock.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sa = sockaddr_of(port);
    if (::bind(sock.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
      throw Error::sys("bind", "monitor listener", errno);
    if (::listen(sock.get(), 64) != 0) throw Error::sys("listen", "monitor listener", errno);
    return sock;
  }

  // A client socket in the inspected namespace connected to kMonAddr:port.
  [[nodiscard]] UniqueFd connect_mon(uint16_t port = 6789) const {
    UniqueFd fd = inspected_fd();
    UniqueFd sock =
        inspect::socket_in_netns(fd.get(), inspected.ns_path(), AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa = sockaddr_of(port);
    if (::connect(sock.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
      throw Error::sys("connect", "monitor client", errno);
    return sock;
  }

  // A monitor listening on kMonAddr:port and one session to it from the
  // inspected namespace; resetting `client` closes the session.
  struct Session {
    UniqueFd listener;
    UniqueFd client;
  };
  [[nodiscard]] Session open_session(uint16_t port = 6789) const {
    UniqueFd listener = listen_mon(port);
    return {std::move(listener), connect_mon(port)};
  }

  static sockaddr_in sockaddr_of(uint16_t port) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    auto ip = inspect::IpAddr::parse(kMonAddr);
    std::memcpy(&sa.sin_addr, ip->bytes.data(), 4);
    return sa;
  }
};

}  // namespace netns::test
