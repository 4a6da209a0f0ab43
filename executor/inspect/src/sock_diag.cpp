#include "netns_exec/inspect/sock_diag.hpp"

#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "netns/error.hpp"

namespace netns::inspect {

const char* proto_name(Proto p) noexcept { return p == Proto::tcp ? "tcp" : "udp"; }

std::string_view state_name(Proto proto, uint8_t state) noexcept {
  if (proto == Proto::udp) {
    if (state == TCP_ESTABLISHED) return "ESTAB";
    if (state == TCP_CLOSE) return "UNCONN";
  }
  switch (state) {
    case TCP_ESTABLISHED:
      return "ESTAB";
    case TCP_SYN_SENT:
      return "SYN-SENT";
    case TCP_SYN_RECV:
      return "SYN-RECV";
    case TCP_FIN_WAIT1:
      return "FIN-WAIT-1";
    case TCP_FIN_WAIT2:
      return "FIN-WAIT-2";
    case TCP_TIME_WAIT:
      return "TIME-WAIT";
    case TCP_CLOSE:
      return "CLOSE";
    case TCP_CLOSE_WAIT:
      return "CLOSE-WAIT";
    case TCP_LAST_ACK:
      return "LAST-ACK";
    case TCP_LISTEN:
      return "LISTEN";
    case TCP_CLOSING:
      return "CLOSING";
    default:
      return "UNKNOWN";
  }
}

namespace {
// 32 KiB is the largest batch the kernel builds per recv for a dump
// (netlink_dump caps at SKB_WITH_OVERHEAD(32768)); a bigger user buffer
// buys nothing, a smaller one makes the kernel use smaller batches.
constexpr size_t kRecvBuffer = 64 * 1024;
constexpr int kSocketRcvBuf = 4 * 1024 * 1024;

struct DumpState {
  Proto proto;
  std::vector<InetSocket>* out;
};

int on_msg(const nlmsghdr* nlh, void* data) {
  auto* state = static_cast<DumpState*>(data);
  if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY && nlh->nlmsg_type != TCPDIAG_GETSOCK)
    return MNL_CB_OK;
  if (mnl_nlmsg_get_payload_len(nlh) < sizeof(inet_diag_msg)) return MNL_CB_OK;
  const auto* m = static_cast<const inet_diag_msg*>(mnl_nlmsg_get_payload(nlh));
  if (m->idiag_family != AF_INET && m->idiag_family != AF_INET6) return MNL_CB_OK;
  InetSocket s;
  s.proto = state->proto;
  s.state = m->idiag_state;
  s.local =
      Endpoint{IpAddr::from_bytes(m->idiag_family, m->id.idiag_src), ntohs(m->id.idiag_sport)};
  s.remote =
      Endpoint{IpAddr::from_bytes(m->idiag_family, m->id.idiag_dst), ntohs(m->id.idiag_dport)};
  s.uid = m->idiag_uid;
  s.inode = m->idiag_inode;
  state->out->push_back(s);
  return MNL_CB_OK;
}
}  // namespace

SockDiag::SockDiag(UniqueFd diag_socket) : buf_(kRecvBuffer) {
  // Sized before libmnl adopts the socket: a bigger receive queue lets the
  // kernel keep filling batches while we parse the previous one. FORCE works
  // with CAP_NET_ADMIN and goes past rmem_max; the plain call is the fallback.
  if (::setsockopt(diag_socket.get(), SOL_SOCKET, SO_RCVBUFFORCE, &kSocketRcvBuf,
                   sizeof kSocketRcvBuf) != 0)
    (void)::setsockopt(diag_socket.get(), SOL_SOCKET, SO_RCVBUF, &kSocketRcvBuf,
                       sizeof kSocketRcvBuf);
  sock_ = mnl_socket_fdopen(diag_socket.get());
  if (sock_ == nullptr) throw Error::sys("mnl_socket_fdopen", "sock_diag socket", errno);
  (void)diag_socket.release();
  portid_ = mnl_socket_get_portid(sock_);
  seq_ = static_cast<unsigned>(::time(nullptr));
}

SockDiag::~SockDiag() { mnl_socket_close(sock_); }

void SockDiag::dump(int family, Proto proto, uint32_t states, std::vector<InetSocket>& out) {
  alignas(nlmsghdr) char req_buf[256] = {};
  nlmsghdr* nlh = mnl_nlmsg_put_header(req_buf);
  nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  auto* req =
      static_cast<inet_diag_req_v2*>(mnl_nlmsg_put_extra_header(nlh, sizeof(inet_diag_req_v2)));
  req->sdiag_family = static_cast<uint8_t>(family);
  req->sdiag_protocol = proto == Proto::tcp ? IPPROTO_TCP : IPPROTO_UDP;
  req->idiag_states = states;
  req->idiag_ext = 0;  // no extensions: the fixed part has everything we show
  std::string what =
      std::string("sock_diag dump ") + proto_name(proto) + (family == AF_INET6 ? "6" : "4");
  (void)run_dump(nlh, proto, what, out);
}

bool SockDiag::dump_tcp_any_family(uint32_t states, std::vector<InetSocket>& out) {
  // The original TCPDIAG_GETSOCK request dumps with family AF_UNSPEC: one walk
  // of the kernel's (node-wide) TCP hash tables for IPv4 and IPv6 together,
  // where the per-family SOCK_DIAG_BY_FAMILY requests walk them twice.
  alignas(nlmsghdr) char req_buf[256] = {};
  nlmsghdr* nlh = mnl_nlmsg_put_header(req_buf);
  nlh->nlmsg_type = TCPDIAG_GETSOCK;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  auto* req = static_cast<inet_diag_req*>(mnl_nlmsg_put_extra_header(nlh, sizeof(inet_diag_req)));
  req->idiag_family = AF_INET;  // ignored by the dump, which is family-agnostic
  req->idiag_states = states;
  size_t before = out.size();
  if (run_dump(nlh, Proto::tcp, "sock_diag dump tcp (TCPDIAG_GETSOCK)", out)) return true;
  out.resize(before);
  return false;
}

bool SockDiag::run_dump(nlmsghdr* nlh, Proto proto, const std::string& what,
                        std::vector<InetSocket>& out) {
  nlh->nlmsg_seq = ++seq_;
  if (mnl_socket_sendto(sock_, nlh, nlh->nlmsg_len) < 0) throw Error::sys("sendto", what, errno);

  DumpState state{proto, &out};
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(sock_, buf_.data(), buf_.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::sys("recvfrom", what, errno);
    }
    int rc = mnl_cb_run(buf_.data(), static_cast<size_t>(n), seq_, portid_, on_msg, &state);
    if (rc == MNL_CB_STOP) return true;
    if (rc < 0) {
      // The kernel answers ENOENT/EAFNOSUPPORT/EINVAL for a family, protocol
      // or request it does not have (IPv6 off, udp_diag absent, no
      // compatibility requests): nothing of that kind.
      if (errno == ENOENT || errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT || errno == EINVAL)
        return false;
      throw Error::sys(
          "sock_diag", what, errno,
          errno == EPERM ? "reading sockets needs CAP_NET_ADMIN in the namespace" : "");
    }
  }
}

std::vector<InetSocket> SockDiag::dump_all() {
  std::vector<InetSocket> out;
  out.reserve(1024);
  if (!dump_tcp_any_family(kAllStates, out))
    for (int family : {AF_INET, AF_INET6}) dump(family, Proto::tcp, kAllStates, out);
  for (int family : {AF_INET, AF_INET6}) dump(family, Proto::udp, kAllStates, out);
  return out;
}

}  // namespace netns::inspect
