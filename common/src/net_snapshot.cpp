#include "netns/net_snapshot.hpp"

#include <arpa/inet.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns {

namespace {

// The NLMSG_*/RTA_* macros cast C-style; these walk the same layout.
const nlmsghdr* first_message(const char* buf, size_t len) {
  return len >= sizeof(nlmsghdr) ? reinterpret_cast<const nlmsghdr*>(buf) : nullptr;
}
const nlmsghdr* next_message(const nlmsghdr* h, size_t& left) {
  size_t step = NLMSG_ALIGN(h->nlmsg_len);
  if (step >= left) return nullptr;
  left -= step;
  const auto* next = reinterpret_cast<const nlmsghdr*>(reinterpret_cast<const char*>(h) + step);
  return left >= sizeof(nlmsghdr) && next->nlmsg_len >= sizeof(nlmsghdr) && next->nlmsg_len <= left
             ? next
             : nullptr;
}
bool message_fits(const nlmsghdr* h, size_t left) {
  return h->nlmsg_len >= sizeof(nlmsghdr) && h->nlmsg_len <= left;
}

// Calls each(type, data, length) for the attributes after a body of
// `body_size` bytes.
template <typename Each>
void for_each_attribute(const nlmsghdr* h, size_t body_size, Each&& each) {
  const char* base = reinterpret_cast<const char*>(h);
  size_t at = NLMSG_LENGTH(0) + NLMSG_ALIGN(body_size);
  while (at + sizeof(rtattr) <= h->nlmsg_len) {
    const auto* a = reinterpret_cast<const rtattr*>(base + at);
    if (a->rta_len < sizeof(rtattr) || at + a->rta_len > h->nlmsg_len) return;
    each(a->rta_type, base + at + RTA_LENGTH(0), a->rta_len - RTA_LENGTH(0));
    at += RTA_ALIGN(a->rta_len);
  }
}

template <typename Body>
const Body* body(const nlmsghdr* h) {
  return h->nlmsg_len >= NLMSG_LENGTH(sizeof(Body))
             ? reinterpret_cast<const Body*>(reinterpret_cast<const char*>(h) + NLMSG_LENGTH(0))
             : nullptr;
}

// One dump: send the request, read until NLMSG_DONE, hand each message of
// `type` to `each`. The socket joined no group, so only the dump's replies
// arrive on it; the sequence number still guards against a stale reply of an
// earlier, interrupted dump.
template <typename Each>
void dump(int sock, uint16_t request, uint16_t type, std::string_view shown, Each&& each) {
  const uint32_t seq = request;  // one dump per request type and socket at a time
  struct {
    nlmsghdr nh;
    ifinfomsg body;  // family first, as in ifaddrmsg; the rest stays zero
  } req{};
  req.nh.nlmsg_len = NLMSG_LENGTH(request == RTM_GETLINK ? sizeof(ifinfomsg) : sizeof(ifaddrmsg));
  req.nh.nlmsg_type = request;
  req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.nh.nlmsg_seq = seq;
  req.body.ifi_family = AF_UNSPEC;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(sock, &req, req.nh.nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof kernel) < 0)
    throw Error::sys("sendto", shown, errno).context("rtnetlink dump");
  // 8 KiB is NLMSG_GOODSIZE's bound, the size of the kernel's dump messages
  // unless a reader ever offered it a larger buffer.
  alignas(nlmsghdr) char buf[8192];
  for (;;) {
    ssize_t n = ::recv(sock, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error::sys("recv", shown, errno).context("rtnetlink dump");
    size_t left = static_cast<size_t>(n);
    for (const nlmsghdr* h = first_message(buf, left); h && message_fits(h, left);
         h = next_message(h, left)) {
      if (h->nlmsg_seq != seq) continue;  // a reply to an earlier, abandoned dump
      if (h->nlmsg_type == NLMSG_DONE) return;
      if (h->nlmsg_type == NLMSG_ERROR) {
        const auto* e = body<nlmsgerr>(h);
        throw Error::sys("rtnetlink dump", shown, e && e->error < 0 ? -e->error : EPROTO);
      }
      if (h->nlmsg_type == type) each(h);
    }
  }
}

const LinkState* find_link(const std::vector<LinkState>& links, int index) {
  for (const auto& l : links)
    if (l.index == index) return &l;
  return nullptr;
}

}  // namespace

UniqueFd open_route_socket(unsigned groups, bool nonblocking) {
  UniqueFd fd =
      make_socket(AF_NETLINK, SOCK_RAW | (nonblocking ? SOCK_NONBLOCK : 0), NETLINK_ROUTE);
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  local.nl_groups = groups;
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&local), sizeof local) != 0)
    throw Error::sys("bind", "NETLINK_ROUTE socket", errno);
  return fd;
}

NetSnapshot read_net_snapshot(int sock, std::string_view shown) {
  NetSnapshot s;
  dump(sock, RTM_GETLINK, RTM_NEWLINK, shown, [&](const nlmsghdr* h) {
    const auto* ifi = body<ifinfomsg>(h);
    if (!ifi) return;
    LinkState l;
    l.index = ifi->ifi_index;
    l.up = (ifi->ifi_flags & IFF_UP) != 0;
    l.lower_up = (ifi->ifi_flags & IFF_LOWER_UP) != 0;
    l.loopback = (ifi->ifi_flags & IFF_LOOPBACK) != 0;
    for_each_attribute(h, sizeof(ifinfomsg), [&](unsigned type, const char* data, size_t len) {
      if (type == IFLA_IFNAME) l.name.assign(data, ::strnlen(data, len));
    });
    s.links.push_back(std::move(l));
  });
  dump(sock, RTM_GETADDR, RTM_NEWADDR, shown, [&](const nlmsghdr* h) {
    const auto* ifa = body<ifaddrmsg>(h);
    if (!ifa) return;
    if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6) return;
    const LinkState* link = find_link(s.links, static_cast<int>(ifa->ifa_index));
    if (!link) return;  // appeared after the link dump; the next notification re-reads
    unsigned flags = ifa->ifa_flags;
    const char* addr = nullptr;
    const size_t want = ifa->ifa_family == AF_INET ? 4 : 16;
    for_each_attribute(h, sizeof(ifaddrmsg), [&](unsigned type, const char* data, size_t len) {
      // IFA_LOCAL is this end of a point-to-point link; IFA_ADDRESS is then
      // the peer.
      if ((type == IFA_LOCAL || (type == IFA_ADDRESS && !addr)) && len >= want) addr = data;
      if (type == IFA_FLAGS && len >= sizeof flags) std::memcpy(&flags, data, sizeof flags);
    });
    if (!addr ||
        !is_client_address(link->loopback, ifa->ifa_family == AF_INET6, ifa->ifa_scope, flags))
      return;
    char text[INET6_ADDRSTRLEN] = {};
    if (!::inet_ntop(ifa->ifa_family, addr, text, sizeof text)) return;
    s.client_addresses.push_back(
        ClientAddress{link->name, text, ifa->ifa_prefixlen, ifa->ifa_family == AF_INET6});
  });
  return s;
}

void drain_route_socket(int sock) {
  alignas(nlmsghdr) char buf[8192];
  for (;;) {
    ssize_t n = ::recv(sock, buf, sizeof buf, MSG_DONTWAIT);
    if (n >= 0) continue;
    if (errno == EINTR || errno == ENOBUFS) continue;
    return;  // EAGAIN: empty
  }
}

}  // namespace netns
