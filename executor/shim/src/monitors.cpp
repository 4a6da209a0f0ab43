#include "netns_exec/shim/monitors.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <map>
#include <optional>

#include "netns/error.hpp"
#include "netns_exec/ceph_csi_config.hpp"
#include "netns_exec/shim/tools.hpp"

namespace netns::exec::shim {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::optional<uint16_t> port_of(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535)
    return std::nullopt;
  return static_cast<uint16_t>(value);
}

// One address: [v1:|v2:|any:]HOST[:PORT][/NONCE], HOST an IPv4 address, a
// name, [IPv6] or a bare IPv6 address (then without a port).
std::optional<Server> parse_one(std::string_view word) {
  Server s;
  s.text = std::string(word);
  s.ports = {kMsgr2Port, kMsgr1Port};
  if (starts_with(word, "v2:")) {
    s.ports = {kMsgr2Port};
    word.remove_prefix(3);
  } else if (starts_with(word, "v1:")) {
    s.ports = {kMsgr1Port};
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
  s.host = read_host(host);
  if (!port.empty()) {
    auto p = port_of(port);
    if (!p) return std::nullopt;
    s.ports = {*p};
  }
  return s;
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

void add_list(Named& out, std::string_view list, std::string_view where, bool slashes) {
  MonitorList parsed = parse_monitors(list, slashes);
  if (!out.text.empty()) {
    out.text += " ";
    out.where += ", ";
  }
  out.text += std::string(list);
  out.where += std::string(where);
  out.servers.insert(out.servers.end(), parsed.monitors.begin(), parsed.monitors.end());
  // A word that is no monitor address: the tool will not read it as the
  // shim does, so what it connects to cannot be told.
  for (const auto& b : parsed.bad)
    out.unknown += (out.unknown.empty() ? "" : "; ") + quote(b) + " (" + std::string(where) +
                   ") is no monitor address";
  if (parsed.monitors.empty() && parsed.bad.empty())
    out.unknown += (out.unknown.empty() ? "" : "; ") + std::string(where) + " names no monitor";
}

// Ceph's dashes_to_underscores(): after the leading two characters, '-' is
// '_' up to the first '='.
std::string ceph_normal(std::string_view arg) {
  std::string out(arg);
  for (size_t i = 2; i < out.size() && out[i] != '='; ++i)
    if (out[i] == '-') out[i] = '_';
  return out;
}

// Ceph's own options and configuration keys that the shim knows: what
// ceph_argparse_early_args() and md_config_t::parse_argv() take from argv
// and CEPH_ARGS (src/common/ceph_argparse.cc, src/common/config.cc: any
// option of the configuration schema, as --NAME VALUE or --NAME=VALUE), and
// the keys of a config file (the same names without "--"). They are Ceph's,
// not a tool's: rbd and mount.ceph (through global_init) read them alike.
// Anything else is not understood, so a session-opening call carrying it is
// refused (the schema has some 2000 options; these are the ones calls use).
const std::vector<Option>& ceph_options() {
  static const std::vector<Option> table{
      // Where it connects. MonMap::build_initial() (src/mon/MonMap.cc, v16.2)
      // takes the monmap file when `monmap` is set, else mon_host_override,
      // else mon_host, else the [mon.X] sections' mon_addr in the config
      // file, else DNS SRV records named by mon_dns_srv_name. Verified with
      // the real rbd 16.2 here: `-m A --mon-host-override B` connects to B.
      {"-M --monmap", true, Means::monmap},
      {"--mon_host_override", true, Means::mon_host_override},
      {"-m --mon_host", true, Means::mon_host},
      // Which config file and which of its sections (ceph_argparse_early_args).
      {"-c --conf", true, Means::conf},
      {"--cluster", true, Means::cluster},
      {"-i --id --user", true, Means::id},
      {"-n --name", true, Means::name},
      // Harmless: DNS SRV is only asked when no monitor is named at all, and
      // that call is refused (the shim does not ask DNS which namespace).
      {"--mon_dns_srv_name", true, Means::harmless},
      // Harmless: credentials and the cluster's ID say who and which, never
      // where (a wrong fsid or key fails the session, it picks no monitor).
      {"-k --keyring --keyfile --key --fsid --auth_cluster_required --auth_service_required "
       "--auth_client_required --auth_supported",
       true, Means::harmless},
      // Harmless: logs, sockets, timeouts and the messenger's modes (how it
      // talks, never to whom); the networks a daemon binds (clients bind none).
      {"--log_file --admin_socket --client_mount_timeout --rados_mon_op_timeout "
       "--rados_osd_op_timeout --ms_client_mode --ms_mon_client_mode --ms_crc_data "
       "--ms_crc_header --mon_initial_members --public_network --cluster_network --debug_*",
       true, Means::harmless},
      // Harmless flags: booleans take no detached value (ceph_argparse_binary_flag).
      {"--log_to_stderr --err_to_stderr --log_to_file --no_mon_config", false, Means::harmless},
  };
  return table;
}

// The Ceph option `normal` (ceph_normal'ed, without "=VALUE") is, if any.
const Option* ceph_option_named(std::string_view normal) {
  for (const Option& o : ceph_options())
    for (std::string_view n : split(o.names, ' ')) {
      const std::string spelled = ceph_normal(n);
      if (!spelled.empty() && spelled.back() == '*') {
        const std::string_view stem(spelled.data(), spelled.size() - 1);
        if (normal.size() > stem.size() && starts_with(normal, stem)) return &o;
      } else if (normal == spelled) {
        return &o;
      }
    }
  return nullptr;
}

// What a Ceph tool's words say, the last of each winning.
struct Setting {
  std::string value;
  std::string where;  // "-m", "CEPH_ARGS --mon_host_override", "mon_host in F [global]"
};
struct CephSettings {
  std::map<Means, Setting> set;
  [[nodiscard]] const Setting* of(Means m) const {
    auto it = set.find(m);
    return it == set.end() ? nullptr : &it->second;
  }
};

// One word list as Ceph reads it (argv up to "--", then CEPH_ARGS): Ceph's
// options into `s`; any other option goes to `own` (the tool's own parser:
// true when it knows the word, advancing `i` past its value), else it is
// not understood. Words that are no option are positional (image specs,
// mount sources): they cannot name a monitor.
template <typename Own>
void read_ceph_words(const std::vector<std::string>& v, const std::string& origin, CephSettings& s,
                     Named& out, Own own) {
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string& word = v[i];
    if (word == "--") break;
    if (word.size() < 2 || word.front() != '-') continue;
    const std::string normal = ceph_normal(word);
    const size_t eq = normal.find('=');
    const Option* o = ceph_option_named(std::string_view(normal).substr(0, eq));
    if (!o) {
      if (!own(v, i)) out.not_understand(word, origin.empty() ? "the command line" : origin);
      continue;
    }
    std::string value;
    if (eq != std::string::npos)
      value = word.substr(eq + 1);
    else if (o->value && i + 1 < v.size())
      value = v[++i];
    else if (o->value)
      continue;  // Ceph: "requires an argument", and nothing runs
    if (o->means != Means::harmless)
      s.set[o->means] = {value, (origin.empty() ? "" : origin + " ") + word.substr(0, eq)};
  }
}

std::vector<std::string> ceph_args_words(const CephEnvironment& env) {
  std::vector<std::string> words;
  if (!env.ceph_args) return words;
  for (std::string_view w : split(*env.ceph_args, ' '))
    if (!w.empty()) words.emplace_back(w);
  return words;
}

// Ceph's config key spelling: blanks, dashes and underscores are alike.
std::string conf_key(std::string_view key) {
  std::string out;
  for (char c : trimmed(key)) {
    c = (c == ' ' || c == '-') ? '_'
                               : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '_' && !out.empty() && out.back() == '_') continue;
    out += c;
  }
  return out;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 || errno != ENOENT;
}

struct ConfLine {
  std::string section, key, value;
};

std::vector<ConfLine> conf_lines(std::string_view text) {
  std::vector<ConfLine> out;
  std::string section;
  for (std::string_view raw : split(text, '\n')) {
    std::string line(raw);
    if (auto c = line.find_first_of("#;"); c != std::string::npos) line.resize(c);
    line = std::string(trimmed(line));
    if (line.empty()) continue;
    if (line.front() == '[') {
      section = conf_key(line.substr(
          1, line.find(']') == std::string::npos ? std::string::npos : line.find(']') - 1));
      continue;
    }
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value(trimmed(std::string_view(line).substr(eq + 1)));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    out.push_back({section, conf_key(line.substr(0, eq)), value});
  }
  return out;
}

// The config file Ceph would read (-c/--conf or conf=, else CEPH_CONF, else
// /etc/ceph/$cluster.conf, ~/.ceph/$cluster.conf, ./$cluster.conf: the
// first that exists), read into `s` under the command line's settings: the
// keys of the sections this client reads ([global], [client], [client.ID];
// src/common/config.cc, the most specific winning) must all be known, and
// [mon.X] mon_addr are collected for when nothing else names a monitor.
// `found` says whether a file was read; a file that cannot be is `unknown`.
struct ConfRead {
  std::string path;   // the file read ("" for none)
  std::string by;     // what chose it
  std::string tried;  // the candidates, quoted
};

void read_config_file(const CephSettings& line, CephSettings& file,
                      std::vector<std::pair<std::string, std::string>>& mon_addrs, ConfRead& found,
                      Named& out, const CephEnvironment& env) {
  std::vector<std::string> candidates;
  std::string by;
  const Setting* chosen = line.of(Means::conf);
  const std::string cluster = line.of(Means::cluster) ? line.of(Means::cluster)->value : "ceph";
  if (chosen) {
    for (std::string_view w : words_of(chosen->value, false)) candidates.emplace_back(w);
    by = chosen->where;
  } else if (env.ceph_conf && !env.ceph_conf->empty()) {
    for (std::string_view w : words_of(*env.ceph_conf, false)) candidates.emplace_back(w);
    by = "CEPH_CONF";
  } else {
    candidates = {"/etc/ceph/" + cluster + ".conf"};
    if (!env.home.empty()) candidates.push_back(env.home + "/.ceph/" + cluster + ".conf");
    candidates.push_back(cluster + ".conf");
    by = "Ceph's default search";
  }
  found.by = by;
  for (const auto& path : candidates) {
    found.tried += (found.tried.empty() ? "" : ", ") + quote(path);
    if (!path_exists(path)) continue;
    std::string text;
    try {
      text = read_trusted_config(path, 1 << 20);
    } catch (const Error& e) {
      out.unknown = "the Ceph config file " + quote(path) + " (" + by +
                    ") that would name the monitors cannot be trusted or read: " + e.describe();
      return;
    }
    found.path = path;
    std::string me = "client.admin";
    if (const Setting* n = line.of(Means::name))
      me = conf_key(n->value);
    else if (const Setting* i = line.of(Means::id))
      me = "client." + conf_key(i->value);
    std::map<Means, int> rank;  // [client.ID] 3, [client] 2, [global] 1
    for (const ConfLine& l : conf_lines(text)) {
      const int r = l.section == me ? 3 : l.section == "client" ? 2 : l.section == "global" ? 1 : 0;
      if (starts_with(l.section, "mon.") && l.key == "mon_addr")
        mon_addrs.emplace_back(l.value, "mon_addr in " + path + " [" + l.section + "]");
      if (r == 0) continue;
      const Option* o = ceph_option_named("--" + l.key);
      if (!o) {
        out.not_understand(l.key, path + " [" + l.section + "]");
        continue;
      }
      if (o->means != Means::mon_host && o->means != Means::mon_host_override &&
          o->means != Means::monmap)
        continue;
      if (rank[o->means] > r) continue;
      rank[o->means] = r;
      file.set[o->means] = {l.value, l.key + " in " + path};
    }
    return;
  }
}

// The monitors Ceph takes from its settings, in MonMap::build_initial()'s
// order, into `out`. `named_before`: monitors the call names itself (a mount
// source), which a mon_host never overrides.
void build_initial(const CephSettings& line, const CephSettings& file,
                   const std::vector<std::pair<std::string, std::string>>& mon_addrs,
                   bool named_before, Named& out) {
  auto pick = [&](Means m) -> const Setting* { return line.of(m) ? line.of(m) : file.of(m); };
  if (const Setting* monmap = pick(Means::monmap)) {
    out.not_understand(monmap->value,
                       monmap->where + ": a monmap file, which the shim cannot read");
    return;
  }
  if (const Setting* o = pick(Means::mon_host_override)) {
    add_list(out, o->value, o->where, false);
    return;
  }
  if (named_before) return;
  if (const Setting* h = pick(Means::mon_host)) {
    add_list(out, h->value, h->where, false);
    return;
  }
  for (const auto& [value, where] : mon_addrs) add_list(out, value, where, false);
}

// No monitor named anywhere: Ceph would ask DNS SRV, which is refused.
void no_monitors(Named& out, const ConfRead& conf) {
  if (out.named() || !out.unknown.empty()) return;
  if (!conf.path.empty())
    out.unknown = "no monitors are named on the command line, and the Ceph config file " +
                  quote(conf.path) + " (" + conf.by +
                  ") has no mon_host (Ceph would ask DNS SRV records)";
  else
    out.unknown =
        "no monitors are named on the command line, and no Ceph config file exists to name "
        "them (" +
        conf.by + ": " + conf.tried + "; Ceph would ask DNS SRV records)";
}

}  // namespace

MonitorList parse_monitors(std::string_view list, bool slash_separated) {
  MonitorList out;
  for (std::string_view word : words_of(list, slash_separated)) {
    // An address vector: its members, each with its own prefix and port.
    if (word.size() > 2 && word.front() == '[' && word.back() == ']' &&
        (word.find("v1:") != std::string_view::npos ||
         word.find("v2:") != std::string_view::npos)) {
      for (std::string_view member : words_of(word.substr(1, word.size() - 2), false)) {
        if (auto s = parse_one(member))
          out.monitors.push_back(*s);
        else
          out.bad.emplace_back(member);
      }
      continue;
    }
    if (auto s = parse_one(word))
      out.monitors.push_back(*s);
    else
      out.bad.emplace_back(word);
  }
  return out;
}

bool same_monitor(std::string_view reading, const std::set<uint16_t>& ports, const Server& m) {
  const auto& a = m.host.addresses;
  if (std::find(a.begin(), a.end(), reading) == a.end() && m.host.name != reading) return false;
  return std::any_of(ports.begin(), ports.end(), [&](uint16_t p) { return m.ports.count(p) > 0; });
}

std::vector<std::string> config_file_monitors(std::string_view text) {
  std::vector<std::string> out;
  for (const ConfLine& l : conf_lines(text)) {
    const bool client =
        l.section == "global" || l.section == "client" || starts_with(l.section, "client.");
    if ((client && l.key == "mon_host") || (starts_with(l.section, "mon.") && l.key == "mon_addr"))
      out.push_back(l.value);
  }
  return out;
}

const std::vector<Option>& ceph_config_options() { return ceph_options(); }

Named rbd_monitors(const Tool& tool, const std::vector<std::string>& args,
                   const CephEnvironment& env) {
  Named out;
  CephSettings line, file;
  std::string device_type = "krbd";
  std::vector<std::string> map_options;
  // rbd's own options (boost::program_options in src/tools/rbd/Shell.cc,
  // without guessing: `rbd --mon-h X` is "unrecognised option"): --NAME,
  // --NAME=V, -X V, -XV.
  auto own = [&](const std::vector<std::string>& v, size_t& i) {
    const std::string& w = v[i];
    const size_t eq = w.find('=');
    const bool is_long = starts_with(w, "--");
    const Option* o = find_option(tool.options, is_long ? w.substr(0, eq) : w.substr(0, 2));
    if (!o || (!is_long && w.size() > 2 && !o->value)) return false;
    std::string value;
    if (is_long && eq != std::string::npos)
      value = w.substr(eq + 1);
    else if (!is_long && w.size() > 2)
      value = w.substr(2);
    else if (o->value && i + 1 < v.size())
      value = v[++i];
    if (o->means == Means::device_type) device_type = value;
    if (o->means == Means::map_options) map_options.push_back(value);
    return true;
  };
  read_ceph_words(args, "", line, out, own);
  read_ceph_words(ceph_args_words(env), "CEPH_ARGS", line, out,
                  [](const std::vector<std::string>&, size_t&) { return false; });
  // -t: krbd hands -o to the kernel, whose rbd options name no monitor
  // (the monitors are the first field of /sys/bus/rbd/add, from the
  // monmap); nbd turns each -o KEY[=V] into rbd-nbd's --KEY (a Ceph option
  // too): those keys must be the row's.
  if (device_type != "krbd" && device_type != "nbd")
    out.not_understand(device_type, "rbd --device-type: krbd and nbd are what the shim knows");
  if (device_type == "nbd")
    for (const auto& list : map_options)
      for (std::string_view kv : split(list, ','))
        if (!kv.empty() && !find_option(tool.keys, kv.substr(0, kv.find('='))))
          out.not_understand(std::string(kv), "the --options of rbd --device-type nbd");
  std::vector<std::pair<std::string, std::string>> mon_addrs;
  ConfRead conf;
  read_config_file(line, file, mon_addrs, conf, out, env);
  if (out.unknown.empty()) build_initial(line, file, mon_addrs, false, out);
  no_monitors(out, conf);
  return out;
}

Named mount_ceph_monitors(const Tool& tool, const std::vector<std::string>& args,
                          const CephEnvironment& env) {
  Named out;
  CephSettings line, file;
  bool have_source = false;
  std::optional<std::string> options;  // mount.ceph keeps the last -o only (verified, 16.2)
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-o" && i + 1 < args.size()) {
      options = args[++i];
    } else if (starts_with(arg, "-o") && arg.size() > 2) {
      options = arg.substr(2);
    } else if (arg.size() >= 2 && arg.front() == '-') {
      if (!find_option(tool.options, arg)) out.not_understand(arg, "the command line");
    } else if (!have_source) {
      // The first word is the source. Old syntax: MONS:/PATH (the monitors
      // may hold colons themselves, the path starts at the first ":/").
      have_source = true;
      if (auto split = arg.find(":/"); split != std::string::npos && split > 0)
        add_list(out, std::string_view(arg).substr(0, split), "the mount source", false);
    }
  }
  if (options) {
    for (std::string_view kv : split(*options, ',')) {
      if (kv.empty()) continue;
      const std::string_view key = kv.substr(0, kv.find('='));
      const std::string_view value =
          kv.find('=') == std::string_view::npos ? "" : kv.substr(kv.find('=') + 1);
      const Option* o = find_option(tool.keys, key);
      if (!o) {
        out.not_understand(std::string(kv), "-o");
        continue;
      }
      if (o->means == Means::mon_addr) add_list(out, value, "mon_addr= in -o", true);
      if (o->means == Means::conf) line.set[Means::conf] = {std::string(value), "conf= in -o"};
      if (o->means == Means::id) line.set[Means::id] = {std::string(value), "name= in -o"};
    }
  }
  // CEPH_ARGS, through global_init (src/mount/conf.cc): Ceph's options only.
  read_ceph_words(ceph_args_words(env), "CEPH_ARGS", line, out,
                  [](const std::vector<std::string>&, size_t&) { return false; });
  std::vector<std::pair<std::string, std::string>> mon_addrs;
  ConfRead conf;
  read_config_file(line, file, mon_addrs, conf, out, env);
  // The source's monitors (and mon_addr=) go to the kernel; a monmap or an
  // override wins over them in Ceph's order, and is kept beside them:
  // whichever is taken, the call's cluster must be one.
  if (out.unknown.empty()) build_initial(line, file, mon_addrs, out.named(), out);
  no_monitors(out, conf);
  return out;
}

}  // namespace netns::exec::shim
