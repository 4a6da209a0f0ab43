#include "netns_exec/shim/addresses.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <optional>

#include "netns/error.hpp"

namespace netns::exec::shim {

namespace {

std::string ntop(int family, const void* bytes) {
  char text[INET6_ADDRSTRLEN] = {};
  return ::inet_ntop(family, bytes, text, sizeof text) ? text : "";
}

// An IPv6 address as inet_pton reads it, a mapped IPv4 one as IPv4.
std::optional<std::string> strict_v6(const std::string& host) {
  in6_addr a{};
  if (::inet_pton(AF_INET6, host.c_str(), &a) != 1) return std::nullopt;
  if (IN6_IS_ADDR_V4MAPPED(&a)) return ntop(AF_INET, &a.s6_addr[12]);
  return ntop(AF_INET6, &a);
}

std::optional<std::string> strict_v4(const std::string& host) {
  in_addr a{};
  if (::inet_pton(AF_INET, host.c_str(), &a) != 1) return std::nullopt;
  return ntop(AF_INET, &a);
}

// glibc's numeric reading (inet_aton: what getaddrinfo tries before DNS).
std::optional<std::string> glibc_v4(const std::string& host) {
  in_addr a{};
  if (::inet_aton(host.c_str(), &a) == 0) return std::nullopt;
  return ntop(AF_INET, &a);
}

// The kernel's in4_pton: four decimal parts, each at most 255, leading zeros
// allowed, nothing after.
std::optional<std::string> kernel_v4(std::string_view host) {
  unsigned char bytes[4];
  for (int part = 0; part < 4; ++part) {
    size_t end = part < 3 ? host.find('.') : host.size();
    if (end == std::string_view::npos || end == 0 || end > 3) return std::nullopt;
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(host.data(), host.data() + end, value);
    if (ec != std::errc() || ptr != host.data() + end || value > 255) return std::nullopt;
    bytes[part] = static_cast<unsigned char>(value);
    host.remove_prefix(part < 3 ? end + 1 : end);
  }
  return ntop(AF_INET, bytes);
}

std::string lower_name(std::string_view host) {
  std::string h(host);
  while (!h.empty() && h.back() == '.') h.pop_back();
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
  return h;
}

// Prefix bits of `a` and `b` (16 bytes each; IPv4 in the first 4) equal.
bool same_prefix(const unsigned char* a, const unsigned char* b, unsigned bits) {
  const unsigned whole = bits / 8;
  if (std::memcmp(a, b, whole) != 0) return false;
  if (bits % 8 == 0) return true;
  const auto mask = static_cast<unsigned char>(0xff << (8 - bits % 8));
  return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

AddressReadings read_host(std::string_view host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  std::string h(host);
  // A zone id names the interface of a link-local address, not the address.
  if (h.find(':') != std::string::npos)
    if (auto pct = h.find('%'); pct != std::string::npos) h.resize(pct);
  AddressReadings r;
  auto add = [&](const std::string& address, const char* by) {
    if (std::find(r.addresses.begin(), r.addresses.end(), address) == r.addresses.end())
      r.addresses.push_back(address);
    r.text += (r.text.empty() ? "" : ", ") + address + " (" + by + ")";
  };
  if (auto v4 = strict_v4(h)) {
    add(*v4, "every reader");
    r.text = *v4;
    return r;
  }
  if (auto v6 = strict_v6(h)) {
    add(*v6, "every reader");
    r.text = *v6;
    return r;
  }
  if (auto g = glibc_v4(h)) add(*g, "glibc");
  if (auto k = kernel_v4(h)) add(*k, "the kernel");
  // Where glibc reads no address, getaddrinfo asks DNS for the name.
  if (!glibc_v4(h)) {
    r.name = lower_name(h);
    r.text += (r.text.empty() ? "" : ", ") + std::string("the name ") + quote(r.name) + " (DNS)";
  }
  return r;
}

Declared parse_declared(std::string_view text, std::string_view what) {
  auto bad = [&](const std::string& why) {
    return Error(Errc::invalid_argument, std::string(what) + ": " + quote(text) + " " + why,
                 "write an address as inet_pton reads it (198.18.4.10, fd00:4::10), a network as "
                 "ADDR/LEN, or a DNS name");
  };
  Declared d;
  d.text = std::string(text);
  std::string_view addr = text;
  std::optional<unsigned> len;
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    addr = text.substr(0, slash);
    std::string_view bits = text.substr(slash + 1);
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), value);
    if (bits.empty() || ec != std::errc() || ptr != bits.data() + bits.size())
      throw bad("has no valid prefix length");
    len = value;
  }
  const std::string a(addr);
  if (auto v4 = strict_v4(a)) {
    d.address = *v4;
  } else if (auto v6 = strict_v6(a)) {
    d.address = *v6;
    d.ipv6 = d.address.find(':') != std::string::npos;
  } else if (len) {
    throw bad("is no network (ADDR/LEN with an IPv4 or IPv6 address)");
  } else if (const AddressReadings r = read_host(a); !r.addresses.empty()) {
    throw bad("is no address as inet_pton reads it, and consumers read it differently (" + r.text +
              ")");
  } else {
    d.name = lower_name(a);
    if (d.name.empty()) throw bad("is empty");
    return d;
  }
  const unsigned max = d.ipv6 ? 128 : 32;
  // A mapped IPv6 network (::ffff:0:0/96 and longer) is an IPv4 one.
  if (len && !d.ipv6 && a.find(':') != std::string::npos) {
    if (*len < 96) throw bad("is a mapped IPv6 network shorter than /96");
    *len -= 96;
  }
  if (len && *len > max) throw bad("has a prefix length over " + std::to_string(max));
  d.prefix = len.value_or(max);
  return d;
}

int coverage(const Declared& declared, std::string_view reading) {
  if (!declared.name.empty()) return declared.name == reading ? 129 : -1;
  const std::string r(reading);
  unsigned char a[16] = {}, b[16] = {};
  const int family = declared.ipv6 ? AF_INET6 : AF_INET;
  if (::inet_pton(family, r.c_str(), a) != 1) return -1;
  if (::inet_pton(family, declared.address.c_str(), b) != 1) return -1;
  return same_prefix(a, b, declared.prefix) ? static_cast<int>(declared.prefix) : -1;
}

void Named::not_understand(std::string_view word, std::string_view place) {
  if (not_understood.empty()) not_understood = quote(word) + " (" + std::string(place) + ")";
}

const Option* find_option(const std::vector<Option>& table, std::string_view spelled) {
  for (const Option& o : table)
    for (std::string_view n : split(o.names, ' ')) {
      if (n == spelled) return &o;
      // "x-*": a group by its prefix (mount's x-* options, Ceph's debug_*).
      if (!n.empty() && n.back() == '*' && spelled.size() >= n.size() &&
          spelled.substr(0, n.size() - 1) == n.substr(0, n.size() - 1))
        return &o;
    }
  return nullptr;
}

}  // namespace netns::exec::shim
