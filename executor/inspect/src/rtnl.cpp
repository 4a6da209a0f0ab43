#include "netns_exec/inspect/rtnl.hpp"

#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include <netlink/route/rtnl.h>
#include <netlink/socket.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <tuple>

#include "netns/error.hpp"

namespace netns::inspect {

namespace {

// linux/if.h has IFF_LOWER_UP but clashes with glibc's net/if.h.
constexpr unsigned kIffLowerUp = 1u << 16;

Error nl_error(std::string_view step, int err) {
  return Error(Errc::system, "netlink " + std::string(step) + ": " + nl_geterror(err),
               "is this a network namespace we may read (CAP_NET_ADMIN)?");
}

struct CacheFree {
  void operator()(nl_cache* c) const noexcept { nl_cache_free(c); }
};
using Cache = std::unique_ptr<nl_cache, CacheFree>;

template <class T, class F>
void for_each(nl_cache* cache, F&& fn) {
  for (nl_object* o = nl_cache_get_first(cache); o != nullptr; o = nl_cache_get_next(o))
    fn(reinterpret_cast<T*>(o));
}

IpAddr ip_of(nl_addr* a) {
  if (a == nullptr) return {};
  int family = nl_addr_get_family(a);
  if ((family != AF_INET && family != AF_INET6) ||
      nl_addr_get_len(a) != (family == AF_INET ? 4u : 16u))
    return {};
  return IpAddr::from_bytes(family, nl_addr_get_binary_addr(a));
}

std::string scope_name(int scope) {
  char buf[32] = {};
  return rtnl_scope2str(scope, buf, sizeof buf);
}

std::string dst_text(nl_addr* dst) {
  if (dst == nullptr || nl_addr_get_prefixlen(dst) == 0) return "default";
  IpAddr ip = ip_of(dst);
  unsigned prefix = nl_addr_get_prefixlen(dst);
  std::string text = ip.str();
  if (prefix != ip.size() * 8) text += "/" + std::to_string(prefix);
  return text;
}

Route route_of(rtnl_route* r, const std::map<int, std::string>& names) {
  Route out;
  out.table = rtnl_route_get_table(r);
  out.family = rtnl_route_get_family(r);
  out.dst = dst_text(rtnl_route_get_dst(r));
  char buf[64] = {};
  out.type = nl_rtntype2str(rtnl_route_get_type(r), buf, sizeof buf);
  out.protocol = rtnl_route_proto2str(rtnl_route_get_protocol(r), buf, sizeof buf);
  out.scope = scope_name(rtnl_route_get_scope(r));
  out.prefsrc = ip_of(rtnl_route_get_pref_src(r));
  out.metric = rtnl_route_get_priority(r);
  if (rtnl_route_get_nnexthops(r) > 0) {
    rtnl_nexthop* nh = rtnl_route_nexthop_n(r, 0);
    out.gateway = ip_of(rtnl_route_nh_get_gateway(nh));
    out.oif = rtnl_route_nh_get_ifindex(nh);
    if (auto it = names.find(out.oif); it != names.end()) out.dev = it->second;
  }
  return out;
}

std::map<int, std::string> link_names(const std::vector<Link>& links) {
  std::map<int, std::string> names;
  for (const auto& l : links) names[l.index] = l.name;
  return names;
}

}  // namespace

RtnlClient::RtnlClient(UniqueFd route_socket) {
  sock_ = nl_socket_alloc();
  if (sock_ == nullptr) throw Error(Errc::system, "netlink: out of memory");
  // libnl adopts the descriptor (nl_socket_free closes it) and reads its port
  // id from getsockname(), so the socket must already be bound.
  int err = nl_socket_set_fd(sock_, NETLINK_ROUTE, route_socket.get());
  if (err < 0) {
    nl_socket_free(sock_);
    throw nl_error("adopt route socket", err);
  }
  (void)route_socket.release();
  nl_socket_disable_auto_ack(sock_);
}

RtnlClient::~RtnlClient() { nl_socket_free(sock_); }

std::vector<Link> RtnlClient::links() {
  nl_cache* raw = nullptr;
  if (int err = rtnl_link_alloc_cache(sock_, AF_UNSPEC, &raw); err < 0)
    throw nl_error("dump links", err);
  Cache cache(raw);
  std::vector<Link> out;
  for_each<rtnl_link>(raw, [&](rtnl_link* l) {
    Link link;
    link.index = rtnl_link_get_ifindex(l);
    if (const char* n = rtnl_link_get_name(l)) link.name = n;
    if (const char* k = rtnl_link_get_type(l)) link.kind = k;
    unsigned flags = rtnl_link_get_flags(l);
    link.up = (flags & IFF_UP) != 0;
    link.lower_up = (flags & kIffLowerUp) != 0;
    link.loopback = (flags & IFF_LOOPBACK) != 0;
    char buf[64] = {};
    link.operstate = rtnl_link_operstate2str(rtnl_link_get_operstate(l), buf, sizeof buf);
    link.mtu = rtnl_link_get_mtu(l);
    if (nl_addr* mac = rtnl_link_get_addr(l);
        mac != nullptr && !link.loopback && nl_addr_get_len(mac) > 0) {
      char macbuf[64] = {};
      link.mac = nl_addr2str(mac, macbuf, sizeof macbuf);
    }
    link.master = rtnl_link_get_master(l);
    out.push_back(std::move(link));
  });
  std::sort(out.begin(), out.end(), [](const Link& a, const Link& b) { return a.index < b.index; });
  return out;
}

std::vector<Address> RtnlClient::addresses() {
  auto names = link_names(links());
  nl_cache* raw = nullptr;
  if (int err = rtnl_addr_alloc_cache(sock_, &raw); err < 0) throw nl_error("dump addresses", err);
  Cache cache(raw);
  std::vector<Address> out;
  for_each<rtnl_addr>(raw, [&](rtnl_addr* a) {
    Address addr;
    addr.index = rtnl_addr_get_ifindex(a);
    if (auto it = names.find(addr.index); it != names.end()) addr.link = it->second;
    addr.addr = ip_of(rtnl_addr_get_local(a));
    addr.prefix = static_cast<unsigned>(rtnl_addr_get_prefixlen(a));
    addr.scope = scope_name(rtnl_addr_get_scope(a));
    if (!addr.addr.empty()) out.push_back(std::move(addr));
  });
  std::stable_sort(out.begin(), out.end(), [](const Address& a, const Address& b) {
    return std::tie(a.index, a.addr.family) < std::tie(b.index, b.addr.family);
  });
  return out;
}

std::vector<Route> RtnlClient::routes() {
  auto names = link_names(links());
  nl_cache* raw = nullptr;
  if (int err = rtnl_route_alloc_cache(sock_, AF_UNSPEC, 0, &raw); err < 0)
    throw nl_error("dump routes", err);
  Cache cache(raw);
  std::vector<Route> out;
  for_each<rtnl_route>(raw, [&](rtnl_route* r) {
    if (rtnl_route_get_table(r) == RT_TABLE_LOCAL) return;
    out.push_back(route_of(r, names));
  });
  std::stable_sort(out.begin(), out.end(), [](const Route& a, const Route& b) {
    return std::tie(a.family, a.table) < std::tie(b.family, b.table);
  });
  return out;
}

namespace {
struct GetRouteState {
  rtnl_route* route = nullptr;
  int kernel_errno = 0;
};

int on_route(nl_msg* msg, void* arg) {
  auto* state = static_cast<GetRouteState*>(arg);
  rtnl_route* r = nullptr;
  if (rtnl_route_parse(nlmsg_hdr(msg), &r) == 0) {
    if (state->route != nullptr) rtnl_route_put(state->route);
    state->route = r;
  }
  return NL_OK;
}

int on_error(sockaddr_nl*, nlmsgerr* e, void* arg) {
  static_cast<GetRouteState*>(arg)->kernel_errno = -e->error;
  return NL_STOP;
}
}  // namespace

std::optional<Route> RtnlClient::route_to(const IpAddr& dst) {
  if (dst.empty()) throw Error(Errc::invalid_argument, "route lookup: no destination address");
  nl_msg* msg = nlmsg_alloc_simple(RTM_GETROUTE, 0);
  if (msg == nullptr) throw Error(Errc::system, "netlink: out of memory");
  rtmsg rtm{};
  rtm.rtm_family = static_cast<unsigned char>(dst.family);
  rtm.rtm_dst_len = static_cast<unsigned char>(dst.size() * 8);
  int err = nlmsg_append(msg, &rtm, sizeof rtm, NLMSG_ALIGNTO);
  if (err >= 0) err = nla_put(msg, RTA_DST, static_cast<int>(dst.size()), dst.bytes.data());
  if (err >= 0) err = nl_send_auto(sock_, msg);
  nlmsg_free(msg);
  if (err < 0) throw nl_error("RTM_GETROUTE " + dst.str(), err);

  GetRouteState state;
  nl_cb* cb = nl_cb_alloc(NL_CB_DEFAULT);
  if (cb == nullptr) throw Error(Errc::system, "netlink: out of memory");
  nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_route, &state);
  nl_cb_err(cb, NL_CB_CUSTOM, on_error, &state);
  err = nl_recvmsgs(sock_, cb);
  nl_cb_put(cb);

  std::unique_ptr<rtnl_route, void (*)(rtnl_route*)> route(state.route, rtnl_route_put);
  if (state.kernel_errno == ENETUNREACH || state.kernel_errno == EHOSTUNREACH) return std::nullopt;
  if (state.kernel_errno != 0) throw Error::sys("RTM_GETROUTE", dst.str(), state.kernel_errno);
  if (err < 0) throw nl_error("RTM_GETROUTE " + dst.str(), err);
  if (!route)
    throw Error(Errc::protocol, "RTM_GETROUTE " + dst.str() + ": no answer from the kernel");

  // The index is the namespace's: name it from a netlink dump, never with
  // if_indextoname (which would ask the caller's namespace).
  std::map<int, std::string> names = link_names(links());
  return route_of(route.get(), names);
}

}  // namespace netns::inspect
