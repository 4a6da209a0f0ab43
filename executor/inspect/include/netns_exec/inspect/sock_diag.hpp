#pragma once
// Every TCP and UDP socket of a namespace (IPv4 and IPv6) from sock_diag
// (inet_diag) over a NETLINK_SOCK_DIAG socket created inside the namespace.
// One dump per family and protocol, read in large batches: no per-socket
// system call, so 10,000 sockets cost a few dozen recv() calls.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "netns/unique_fd.hpp"
#include "netns_exec/inspect/ip_address.hpp"

struct mnl_socket;
struct nlmsghdr;

namespace netns::inspect {

enum class Proto : uint8_t { tcp, udp };
const char* proto_name(Proto p) noexcept;  // "tcp", "udp"

struct InetSocket {
  Proto proto = Proto::tcp;
  uint8_t state = 0;  // TCP_ESTABLISHED, ... (linux/tcp.h numbering; UDP uses 1 and 7)
  Endpoint local;
  Endpoint remote;
  uint32_t uid = 0;
  uint64_t inode = 0;  // 0: no socket file (TIME_WAIT, SYN_RECV, or no struct socket at all)
};

// "ESTAB", "LISTEN", "TIME-WAIT", ... as ss(8) prints them; UDP's
// TCP_CLOSE is "UNCONN".
std::string_view state_name(Proto proto, uint8_t state) noexcept;

// Bit masks for Dump::states.
inline constexpr uint32_t kAllStates = ~0u;
inline constexpr uint32_t state_bit(uint8_t state) { return 1u << state; }

class SockDiag {
 public:
  // Takes a bound NETLINK_SOCK_DIAG socket.
  explicit SockDiag(UniqueFd diag_socket);
  ~SockDiag();
  SockDiag(const SockDiag&) = delete;
  SockDiag& operator=(const SockDiag&) = delete;

  // Appends the sockets of one family (AF_INET, AF_INET6) and protocol whose
  // state is in `states`. A family the kernel does not have (IPv6 disabled)
  // yields nothing.
  void dump(int family, Proto proto, uint32_t states, std::vector<InetSocket>& out);
  // TCP of both families in one kernel walk (TCPDIAG_GETSOCK); false (and
  // nothing appended) when the kernel does not take that request.
  bool dump_tcp_any_family(uint32_t states, std::vector<InetSocket>& out);
  // TCP and UDP, IPv4 and IPv6, every state.
  std::vector<InetSocket> dump_all();

 private:
  // Sends the prepared dump request and parses the answer into `out`; false
  // when the kernel does not know the request.
  bool run_dump(nlmsghdr* request, Proto proto, const std::string& what,
                std::vector<InetSocket>& out);

  mnl_socket* sock_ = nullptr;
  unsigned portid_ = 0;
  unsigned seq_ = 0;
  std::vector<char> buf_;
};

}  // namespace netns::inspect
