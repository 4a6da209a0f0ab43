#include "netns_exec/inspect/ip_address.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "netns/error.hpp"

namespace netns::inspect {

std::optional<IpAddr> IpAddr::parse(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  std::string copy(text);
  IpAddr out;
  if (::inet_pton(AF_INET, copy.c_str(), out.bytes.data()) == 1) {
    out.family = AF_INET;
    return out;
  }
  if (::inet_pton(AF_INET6, copy.c_str(), out.bytes.data()) == 1) {
    out.family = AF_INET6;
    return out;
  }
  return std::nullopt;
}

IpAddr IpAddr::from_bytes(int family, const void* data) {
  IpAddr out;
  out.family = family;
  std::memcpy(out.bytes.data(), data, out.size());
  return out;
}

std::string IpAddr::str() const {
  if (empty()) return {};
  char buf[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(family, bytes.data(), buf, sizeof buf) == nullptr) return "?";
  return buf;
}

bool IpAddr::is_any() const noexcept {
  return !empty() && std::all_of(bytes.begin(), bytes.begin() + static_cast<long>(size()),
                                 [](uint8_t b) { return b == 0; });
}

Endpoint Endpoint::parse(std::string_view text, std::string_view what,
                         std::optional<uint16_t> default_port) {
  auto bad = [&](const char* why) {
    return Error(Errc::invalid_argument, std::string(what) + " " + quote(text) + ": " + why,
                 "write ADDR:PORT, e.g. 198.18.0.10:6789 or [fd00::10]:3300");
  };
  std::string_view host = text;
  std::string_view port;
  bool has_port = false;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) throw bad("missing ']'");
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') throw bad("expected ':' after ']'");
      port = rest.substr(1);
      has_port = true;
    }
  } else if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
    if (text.find(':') != colon) throw bad("an IPv6 address needs brackets: [ADDR]:PORT");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    has_port = true;
  }
  auto addr = IpAddr::parse(host);
  if (!addr) throw bad("not a numeric IPv4 or IPv6 address");
  Endpoint out{*addr, 0};
  if (!has_port) {
    if (!default_port) throw bad("missing :PORT");
    out.port = *default_port;
    return out;
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
      value > 65535)
    throw bad("the port must be a number from 1 to 65535");
  out.port = static_cast<uint16_t>(value);
  return out;
}

std::string Endpoint::str() const {
  std::string host = addr.str();
  if (addr.family == AF_INET6) host = "[" + host + "]";
  return host + ":" + std::to_string(port);
}

}  // namespace netns::inspect
