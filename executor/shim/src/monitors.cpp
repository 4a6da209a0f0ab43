#include "netns_exec/shim/monitors.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "netns_exec/shim/targets.hpp"

namespace netns::exec::shim {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The one canonical form of an address (targets.hpp): monitors and NVMe/NFS
// targets compare alike.
std::string canonical_host(std::string_view host) { return canonical_address(host); }

std::optional<uint16_t> port_of(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535)
    return std::nullopt;
  return static_cast<uint16_t>(value);
}

// One address: [v1:|v2:]HOST[:PORT][/NONCE], HOST an IPv4 address, a name,
// [IPv6] or a bare IPv6 address (then without a port).
std::optional<Endpoint> parse_one(std::string_view word) {
  std::set<uint16_t> defaults{kMsgr2Port, kMsgr1Port};
  if (starts_with(word, "v2:")) {
    defaults = {kMsgr2Port};
    word.remove_prefix(3);
  } else if (starts_with(word, "v1:")) {
    defaults = {kMsgr1Port};
    word.remove_prefix(3);
  } else if (starts_with(word, "any:")) {
    word.remove_prefix(4);
  }
  if (auto slash = word.find('/'); slash != std::string_view::npos) word = word.substr(0, slash);
  if (word.empty()) return std::nullopt;

  std::string_view host = word;
  std::string_view port;
  if (word.front() == '[') {
    auto close = word.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = word.substr(1, close - 1);
    std::string_view rest = word.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else if (std::count(word.begin(), word.end(), ':') == 1) {
    auto colon = word.find(':');
    host = word.substr(0, colon);
    port = word.substr(colon + 1);
  }
  if (host.empty()) return std::nullopt;
  Endpoint e{canonical_host(host), defaults};
  if (!port.empty()) {
    auto p = port_of(port);
    if (!p) return std::nullopt;
    e.ports = {*p};
  }
  return e;
}

// Splits on commas, semicolons and blanks (and slashes for mon_addr=), but
// not inside brackets: "[v2:a:3300,v1:a:6789]" is one vector, "[::1]" one host.
std::vector<std::string_view> words_of(std::string_view list, bool slash_separated) {
  std::vector<std::string_view> words;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    const bool separator =
        c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n' || (slash_separated && c == '/');
    if (separator && (depth == 0 || i == list.size())) {
      if (i > start) words.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  return words;
}

void add_list(NamedMonitors& out, std::string_view list, std::string_view where, bool slashes) {
  auto endpoints = parse_monitors(list, slashes);
  if (endpoints.empty()) return;
  if (!out.text.empty()) {
    out.text += " ";
    out.where += ", ";
  }
  out.text += std::string(list);
  out.where += std::string(where);
  out.endpoints.insert(out.endpoints.end(), endpoints.begin(), endpoints.end());
}

}  // namespace

std::vector<Endpoint> parse_monitors(std::string_view list, bool slash_separated) {
  std::vector<Endpoint> out;
  for (std::string_view word : words_of(list, slash_separated)) {
    // An address vector: its members, each with its own prefix and port.
    if (word.size() > 2 && word.front() == '[' && word.back() == ']' &&
        (word.find("v1:") != std::string_view::npos ||
         word.find("v2:") != std::string_view::npos)) {
      std::string_view inner = word.substr(1, word.size() - 2);
      for (std::string_view member : words_of(inner, false))
        if (auto e = parse_one(member)) out.push_back(*e);
      continue;
    }
    if (auto e = parse_one(word)) out.push_back(*e);
  }
  return out;
}

bool same_monitor(const Endpoint& a, const Endpoint& b) {
  if (a.host != b.host) return false;
  return std::any_of(a.ports.begin(), a.ports.end(),
                     [&](uint16_t p) { return b.ports.count(p) > 0; });
}

bool share_a_monitor(const std::vector<Endpoint>& a, const std::vector<Endpoint>& b) {
  for (const auto& x : a)
    for (const auto& y : b)
      if (same_monitor(x, y)) return true;
  return false;
}

NamedMonitors rbd_monitors(const std::vector<std::string>& args) {
  NamedMonitors out;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg(args[i]);
    if (arg == "--") break;  // what follows is not rbd's options
    for (std::string_view name : {"-m", "--mon-host", "--mon_host"}) {
      if (arg == name && i + 1 < args.size()) {
        add_list(out, args[++i], name, false);
        break;
      }
      std::string with_value = std::string(name) + (name == "-m" ? "" : "=");
      if (arg.size() > with_value.size() && starts_with(arg, with_value)) {
        add_list(out, arg.substr(with_value.size()), name, false);
        break;
      }
    }
  }
  return out;
}

NamedMonitors mount_ceph_monitors(const std::vector<std::string>& args) {
  NamedMonitors out;
  bool have_source = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg(args[i]);
    std::string_view options;
    if (arg == "-o" && i + 1 < args.size())
      options = args[++i];
    else if (starts_with(arg, "-o") && arg.size() > 2)
      options = arg.substr(2);
    else if (!arg.empty() && arg.front() != '-' && !have_source) {
      // The first word is the source. Old syntax: MONS:/PATH (the monitors
      // may hold colons themselves, the path starts at the first ":/").
      have_source = true;
      if (auto split = arg.find(":/"); split != std::string_view::npos)
        add_list(out, arg.substr(0, split), "the mount source", false);
      continue;
    } else {
      continue;
    }
    // -o a=b,c,mon_host=M1,M2,d=e: mon_host's list runs on over the words
    // that have no '=' (a flag such as `noshare` is taken along as a host
    // name, and matches no monitor of the config).
    auto words = words_of(options, false);
    for (size_t w = 0; w < words.size(); ++w) {
      if (starts_with(words[w], "mon_addr="))
        add_list(out, words[w].substr(9), "mon_addr= in -o", true);
      if (starts_with(words[w], "mon_host=")) {
        std::string list(words[w].substr(9));
        while (w + 1 < words.size() && words[w + 1].find('=') == std::string_view::npos)
          list += "," + std::string(words[++w]);
        add_list(out, list, "mon_host= in -o", false);
      }
    }
  }
  return out;
}

}  // namespace netns::exec::shim
