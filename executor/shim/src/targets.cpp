#include "netns_exec/shim/targets.hpp"

#include <algorithm>
#include <cctype>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns_exec/shim/tools.hpp"

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

namespace {

// nvme-cli 2.3's subcommand matching (plugin.c:153-176): leading dashes
// stripped ("--connect" is connect), an exact name, else a unique prefix of
// one. The row's commands are the session-opening ones: an exact one is it;
// a prefix of one is an abbreviation the shim does not expand (refused: it
// may be the only match, and the table does not list every subcommand to
// tell).
struct Subcommand {
  const Command* command = nullptr;
  bool abbreviation = false;
};

Subcommand nvme_subcommand(const Tool& tool, const std::vector<std::string>& args) {
  Subcommand out;
  if (args.empty()) return out;
  std::string_view word(args[0]);
  while (!word.empty() && word.front() == '-') word.remove_prefix(1);
  for (const Command& c : tool.commands)
    if (c.name == word) {
      out.command = &c;
      return out;
    }
  if (word == "help" || word == "version") return out;
  for (const Command& c : tool.commands)
    if (starts_with(c.name, word)) out.abbreviation = true;
  return out;
}

}  // namespace

bool nvme_connects(const Tool& tool, const std::vector<std::string>& args) {
  const Subcommand sub = nvme_subcommand(tool, args);
  if (!sub.command && !sub.abbreviation) return false;
  return std::none_of(args.begin() + 1, args.end(),
                      [](const std::string& a) { return a == "-h" || a == "--help"; });
}

// getopt_long_only() as argconfig calls it (util/argconfig.c:218): "--NAME"
// and "-NAME" are long options, exact or a unique prefix ("--trad"); a
// single "-X", or "-XVALUE" whose word is no long option, is short; "--"
// ends the options. The last -a/--traddr wins.
Named nvme_target(const Tool& tool, const std::vector<std::string>& args) {
  Named out;
  if (!nvme_connects(tool, args)) return out;
  const Subcommand sub = nvme_subcommand(tool, args);
  if (sub.abbreviation) {
    out.not_understand(args[0],
                       "an abbreviation nvme-cli expands to a subcommand (plugin.c:153-176); "
                       "write the subcommand in full");
    return out;
  }
  if (!sub.command) return out;
  const std::vector<Option>& table = sub.command->options;
  auto short_of = [&](char c) { return find_option(table, std::string{'-', c}); };
  std::optional<std::pair<std::string, std::string>> last;  // {value, where}
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg.front() != '-') continue;  // getopt permutes operands past
    const bool dashes = starts_with(arg, "--");
    const std::string body = arg.substr(dashes ? 2 : 1);
    const Option* o = nullptr;
    std::optional<std::string> value;
    if (dashes || body.size() > 1 || !short_of(body[0])) {
      const std::string name = body.substr(0, body.find('='));
      std::vector<const Option*> prefixed;
      for (const Option& opt : table)
        for (std::string_view n : split(opt.names, ' ')) {
          if (!starts_with(n, "--")) continue;
          if (n.substr(2) == name) o = &opt;
          if (starts_with(n.substr(2), name) &&
              std::find(prefixed.begin(), prefixed.end(), &opt) == prefixed.end())
            prefixed.push_back(&opt);
        }
      if (!o && prefixed.size() == 1) o = prefixed.front();
      if (!o && prefixed.size() > 1) {
        out.not_understand(arg, "an ambiguous abbreviation of `nvme " + args[0] + "`'s options");
        continue;
      }
      if (o && body.find('=') != std::string::npos) value = body.substr(body.find('=') + 1);
      if (!o && (dashes || !short_of(body[0]))) {
        out.not_understand(arg, "not an option of `nvme " + args[0] + "` (fabrics.c)");
        continue;
      }
    }
    if (!o) {  // short options, clustered: -gG, -a198.18.4.13
      for (size_t j = 0; j < body.size(); ++j) {
        o = short_of(body[j]);
        if (!o) {
          out.not_understand(arg, "not an option of `nvme " + args[0] + "` (fabrics.c)");
          break;
        }
        if (o->value) {
          if (j + 1 < body.size()) value = body.substr(j + 1);
          break;
        }
        if (j + 1 < body.size()) o = nullptr;
      }
      if (!o) continue;
    }
    if (o->value && !value && i + 1 < args.size()) value = args[++i];
    if (o->means == Means::target && value)
      last.emplace(*value, dashes || body.size() > 1 ? "--traddr" : "-a");
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

Named nfs_server(const Tool& tool, const std::vector<std::string>& args) {
  Named out;
  bool have_source = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg(args[i]);
    std::string_view options;
    if (arg == "-o" && i + 1 < args.size()) {
      options = args[++i];  // mount.nfs joins every -o (nfs-utils utils/mount/mount.c)
    } else if (starts_with(arg, "-o") && arg.size() > 2) {
      options = arg.substr(2);
    } else if (arg.size() >= 2 && arg.front() == '-') {
      const Option* o = find_option(tool.options, arg);
      if (!o)
        out.not_understand(args[i], "the command line");
      else if (o->value)
        ++i;
      continue;
    } else if (!arg.empty() && !have_source) {
      // The first word is SERVER:/EXPORT; an IPv6 server is bracketed.
      have_source = true;
      size_t split = arg.find(':');
      if (arg.front() == '[')
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
      if (w.empty()) continue;
      const std::string_view key = w.substr(0, w.find('='));
      const Option* o = find_option(tool.keys, key);
      if (!o) {
        out.not_understand(std::string(w), "-o");
        continue;
      }
      if (o->means != Means::target || w.find('=') == std::string_view::npos) continue;
      std::string_view host = w.substr(key.size() + 1);
      out.text += (out.text.empty() ? "" : " ") + std::string(host);
      out.where += (out.where.empty() ? "" : ", ") + std::string(key) + "= in -o";
      out.servers.push_back(server_of(host));
    }
  }
  if (!out.named() && out.unknown.empty()) out.unknown = "the call names no NFS server";
  return out;
}

}  // namespace netns::exec::shim
