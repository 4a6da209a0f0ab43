#include "netns_exec/shim/targets.hpp"

#include <algorithm>
#include <cctype>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"

namespace netns::exec::shim {

namespace {

Error bad_entry(std::string_view entry, const std::string& why) {
  return Error(Errc::invalid_argument,
               std::string("environment variable ") + kTargetsVariable + ": entry " + quote(entry) +
                   " " + why,
               "write ID=ADDR[,ADDR...] per holder, entries separated by ';' (ADDR an address, "
               "a CIDR such as 198.18.4.0/24, or a host name)");
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

Server server_of(std::string_view host) { return Server{std::string(host), read_host(host), {}}; }

}  // namespace

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
      h.addresses.push_back(parse_declared(
          a, std::string("environment variable ") + kTargetsVariable + ": entry " + quote(entry)));
    }
    if (h.addresses.empty()) throw bad_entry(entry, "names no address for holder " + quote(h.id));
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<std::string> holders_covering(const std::vector<DeclaredHolder>& holders,
                                          std::string_view reading) {
  std::vector<std::string> out;
  int best = -1;
  for (const auto& h : holders)
    for (const auto& d : h.addresses) {
      const int c = coverage(d, reading);
      if (c < 0 || c < best) continue;
      if (c > best) out.clear();
      best = c;
      if (std::find(out.begin(), out.end(), h.id) == out.end()) out.push_back(h.id);
    }
  return out;
}

bool nvme_connects(const std::vector<std::string>& args) {
  if (args.empty() || (args[0] != "connect" && args[0] != "connect-all" && args[0] != "discover" &&
                       args[0] != "dim"))
    return false;
  return std::none_of(args.begin(), args.end(),
                      [](const std::string& a) { return a == "-h" || a == "--help"; });
}

Named nvme_target(const std::vector<std::string>& args) {
  Named out;
  if (!nvme_connects(args)) return out;
  std::optional<std::pair<std::string, std::string>> last;  // {value, where}: getopt's last wins
  for (size_t i = 1; i < args.size(); ++i) {
    std::string_view arg(args[i]);
    if (arg == "--") break;
    if (arg == "-a" && i + 1 < args.size()) {
      last.emplace(args[++i], "-a");
      continue;
    }
    if (starts_with(arg, "-a") && arg.size() > 2 && arg[2] != '-') {
      last.emplace(std::string(arg.substr(2)), "-a");
      continue;
    }
    // getopt_long takes an unambiguous prefix: --trad.. is traddr (--tra
    // could be --transport too).
    if (!starts_with(arg, "--trad")) continue;
    std::string_view name = arg.substr(0, arg.find('='));
    if (!starts_with("--traddr", name)) continue;
    if (name.size() < arg.size())
      last.emplace(std::string(arg.substr(name.size() + 1)), "--traddr");
    else if (i + 1 < args.size())
      last.emplace(args[++i], "--traddr");
  }
  if (!last) {
    out.unknown = "`nvme " + args[0] +
                  "` names no target address (-a/--traddr), so its targets come from "
                  "/etc/nvme/discovery.conf or a -J config";
    return out;
  }
  out.text = last->first;
  out.where = last->second;
  out.servers.push_back(server_of(last->first));
  return out;
}

Named nfs_server(const std::vector<std::string>& args) {
  Named out;
  bool have_source = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg(args[i]);
    std::string_view options;
    if (arg == "-o" && i + 1 < args.size()) {
      options = args[++i];
    } else if (starts_with(arg, "-o") && arg.size() > 2) {
      options = arg.substr(2);
    } else if (arg == "-t" || arg == "-O") {  // an option with a value
      ++i;
      continue;
    } else if (!arg.empty() && arg.front() != '-' && !have_source) {
      // The first word is SERVER:/EXPORT; an IPv6 server is bracketed.
      have_source = true;
      size_t split = arg.find(':');
      if (!arg.empty() && arg.front() == '[')
        split =
            arg.find("]:") == std::string_view::npos ? std::string_view::npos : arg.find("]:") + 1;
      if (split == std::string_view::npos || split == 0) {
        out.unknown = "the mount source " + quote(arg) + " is not SERVER:/EXPORT";
        continue;
      }
      std::string_view host = arg.substr(0, split);
      out.text += (out.text.empty() ? "" : " ") + std::string(host);
      out.where += (out.where.empty() ? "" : ", ") + std::string("the mount source");
      out.servers.push_back(server_of(host));
      continue;
    } else {
      continue;
    }
    // The kernel connects to addr= (and mountd to mountaddr=) when given.
    for (std::string_view w : split(options, ',')) {
      for (std::string_view key : {"addr=", "mountaddr="}) {
        if (!starts_with(w, key)) continue;
        std::string_view host = w.substr(key.size());
        out.text += (out.text.empty() ? "" : " ") + std::string(host);
        out.where += (out.where.empty() ? "" : ", ") + std::string(key) + " in -o";
        out.servers.push_back(server_of(host));
      }
    }
  }
  if (!out.named() && out.unknown.empty()) out.unknown = "the call names no NFS server";
  return out;
}

}  // namespace netns::exec::shim
