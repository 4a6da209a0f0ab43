#include "netns_exec/shim/targets.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"

namespace netns::exec::shim {

namespace {

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

Error bad_entry(std::string_view entry, const std::string& why) {
  return Error(Errc::invalid_argument,
               std::string("environment variable ") + kTargetsVariable + ": entry " + quote(entry) +
                   " " + why,
               "write ID=ADDR[,ADDR...] per holder, entries separated by ';' (ADDR an address, "
               "a CIDR such as 198.18.4.0/24, or a host name)");
}

// An IP address's bytes and length (4 or 16); 0 when `text` is none.
size_t address_bytes(std::string_view text, unsigned char (&out)[16]) {
  std::string s(text);
  if (::inet_pton(AF_INET, s.c_str(), out) == 1) return 4;
  if (::inet_pton(AF_INET6, s.c_str(), out) == 1) return 16;
  return 0;
}

// "ADDR/LEN": nullopt when `declared` is no CIDR; else whether it is valid.
std::optional<bool> cidr_valid(std::string_view declared, unsigned char (&net)[16], size_t& len,
                               unsigned& prefix) {
  auto slash = declared.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  len = address_bytes(declared.substr(0, slash), net);
  std::string_view bits = declared.substr(slash + 1);
  auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
  return len != 0 && ec == std::errc() && end == bits.data() + bits.size() && !bits.empty() &&
         prefix <= len * 8;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string canonical_address(std::string_view host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  unsigned char bytes[16];
  char text[INET6_ADDRSTRLEN] = {};
  if (size_t n = address_bytes(host, bytes);
      n != 0 && ::inet_ntop(n == 4 ? AF_INET : AF_INET6, bytes, text, sizeof text))
    return text;
  std::string h(host);
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
  return h;
}

std::vector<DeclaredHolder> parse_targets(std::string_view text) {
  std::vector<DeclaredHolder> out;
  for (std::string_view entry : split(text, ';')) {
    entry = trimmed(entry);
    if (entry.empty()) continue;
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) throw bad_entry(entry, "has no '=' (ID=ADDR[,ADDR...])");
    DeclaredHolder h{std::string(trimmed(entry.substr(0, eq))), {}};
    try {
      validate_cluster_id(h.id);
    } catch (Error& e) {
      e.context(std::string("environment variable ") + kTargetsVariable + ": entry " +
                quote(entry));
      throw;
    }
    for (std::string_view a : split(entry.substr(eq + 1), ',')) {
      a = trimmed(a);
      if (a.empty()) continue;
      unsigned char net[16];
      size_t len = 0;
      unsigned prefix = 0;
      if (cidr_valid(a, net, len, prefix) == false)
        throw bad_entry(entry, "has " + quote(a) +
                                   ", which is no CIDR (ADDR/LEN, LEN at most 32 "
                                   "for IPv4 and 128 for IPv6)");
      h.addresses.emplace_back(a);
    }
    if (h.addresses.empty()) throw bad_entry(entry, "names no address for holder " + quote(h.id));
    out.push_back(std::move(h));
  }
  return out;
}

bool address_matches(std::string_view host, std::string_view declared) {
  unsigned char net[16];
  size_t len = 0;
  unsigned prefix = 0;
  if (auto cidr = cidr_valid(declared, net, len, prefix)) {
    unsigned char addr[16];
    if (!*cidr || address_bytes(host, addr) != len) return false;
    const size_t whole = prefix / 8;
    if (std::memcmp(addr, net, whole) != 0) return false;
    if (prefix % 8 == 0) return true;
    const unsigned char mask = static_cast<unsigned char>(0xff << (8 - prefix % 8));
    return (addr[whole] & mask) == (net[whole] & mask);
  }
  return host == canonical_address(declared);
}

std::optional<TargetMatch> holder_serving(const std::vector<DeclaredHolder>& holders,
                                          std::string_view host) {
  for (const auto& h : holders)
    for (const auto& a : h.addresses)
      if (address_matches(host, a)) return TargetMatch{h.id, a};
  return std::nullopt;
}

bool nvme_connects(const std::vector<std::string>& args) {
  if (args.empty() || (args[0] != "connect" && args[0] != "connect-all" && args[0] != "discover"))
    return false;
  for (const auto& a : args)
    if (a == "-h" || a == "--help") return false;
  return true;
}

std::optional<NamedTarget> nvme_target(const std::vector<std::string>& args) {
  if (!nvme_connects(args)) return std::nullopt;
  std::optional<NamedTarget> out;  // the last one given wins, as with getopt
  auto take = [&](std::string_view value, std::string_view where) {
    out = NamedTarget{canonical_address(value), std::string(value), std::string(where)};
  };
  for (size_t i = 1; i < args.size(); ++i) {
    std::string_view arg(args[i]);
    if (arg == "--") break;
    if (arg == "-a" && i + 1 < args.size()) {
      take(args[++i], "-a");
      continue;
    }
    if (starts_with(arg, "-a") && arg.size() > 2 && arg[2] != '-') {
      take(arg.substr(2), "-a");
      continue;
    }
    // getopt_long takes an unambiguous prefix: --trad.. is traddr (--tra
    // could be --transport too).
    if (!starts_with(arg, "--trad")) continue;
    std::string_view name = arg.substr(0, arg.find('='));
    if (!starts_with("--traddr", name)) continue;
    if (name.size() < arg.size())
      take(arg.substr(name.size() + 1), "--traddr");
    else if (i + 1 < args.size())
      take(args[++i], "--traddr");
  }
  return out;
}

std::optional<NamedTarget> nfs_server(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg(args[i]);
    if (arg == "-o" || arg == "-t") {  // an option with a value
      ++i;
      continue;
    }
    if (arg.empty() || arg.front() == '-') continue;
    // The first word is SERVER:/EXPORT; an IPv6 server is bracketed.
    auto split = arg.find(":/");
    if (arg.front() == '[')
      split = arg.find("]:") == std::string_view::npos ? split : arg.find("]:") + 1;
    if (split == std::string_view::npos || split == 0) return std::nullopt;
    std::string_view host = arg.substr(0, split);
    return NamedTarget{canonical_address(host), std::string(host), "the mount source"};
  }
  return std::nullopt;
}

}  // namespace netns::exec::shim
