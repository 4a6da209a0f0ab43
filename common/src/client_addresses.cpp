#include "netns/client_addresses.hpp"

#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include "netns/error.hpp"
#include "netns/join.hpp"

namespace netns {

bool is_client_address(bool loopback_interface, bool ipv6, unsigned char scope,
                       unsigned ifa_flags) {
  if (loopback_interface) return false;
  if (scope == RT_SCOPE_HOST || scope == RT_SCOPE_NOWHERE) return false;
  if (scope == RT_SCOPE_LINK && ipv6) return false;
  return (ifa_flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)) == 0;
}

std::string format_client_addresses(const std::vector<ClientAddress>& addresses) {
  return join(addresses, " ",
              [](const ClientAddress& a) { return interface_cidr(a) + '%' + a.interface; });
}

namespace {

Error bad_entry(std::string_view entry, std::string_view why) {
  return Error(Errc::invalid_argument, "client address entry " + quote(entry) + " " +
                                           std::string(why) +
                                           " (expected ADDRESS/PREFIX%INTERFACE)");
}

ClientAddress parse_entry(std::string_view entry) {
  size_t pct = entry.find('%');
  size_t slash = entry.find('/');
  if (pct == std::string_view::npos || slash == std::string_view::npos || slash > pct)
    throw bad_entry(entry, "is malformed");
  ClientAddress a;
  a.address = std::string(entry.substr(0, slash));
  a.interface = std::string(entry.substr(pct + 1));
  std::string_view prefix = entry.substr(slash + 1, pct - slash - 1);
  if (a.interface.empty() || a.interface.size() > 15)
    throw bad_entry(entry, "has no valid interface name");
  unsigned char buf[16];
  if (::inet_pton(AF_INET, a.address.c_str(), buf) == 1)
    a.ipv6 = false;
  else if (::inet_pton(AF_INET6, a.address.c_str(), buf) == 1)
    a.ipv6 = true;
  else
    throw bad_entry(entry, "has no valid address");
  if (prefix.empty() || prefix.size() > 3) throw bad_entry(entry, "has no valid prefix length");
  unsigned value = 0;
  for (char c : prefix) {
    if (c < '0' || c > '9') throw bad_entry(entry, "has no valid prefix length");
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > (a.ipv6 ? 128u : 32u) || (prefix.size() > 1 && prefix[0] == '0'))
    throw bad_entry(entry, "has no valid prefix length");
  a.prefix = value;
  return a;
}

}  // namespace

std::vector<ClientAddress> parse_client_addresses(std::string_view text) {
  std::vector<ClientAddress> out;
  if (text.empty()) return out;
  size_t start = 0;
  for (;;) {
    size_t end = text.find(' ', start);
    std::string_view entry = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (entry.empty()) throw Error(Errc::invalid_argument, "client addresses have an empty entry");
    out.push_back(parse_entry(entry));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::string address_cidr(const ClientAddress& a) { return a.address + (a.ipv6 ? "/128" : "/32"); }

std::string interface_cidr(const ClientAddress& a) {
  return a.address + '/' + std::to_string(a.prefix);
}

}  // namespace netns
