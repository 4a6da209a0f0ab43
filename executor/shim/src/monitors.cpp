#include "netns_exec/shim/monitors.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <optional>

#include "netns/error.hpp"
#include "netns_exec/ceph_csi_config.hpp"

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

// ceph_argparse_witharg(): `NAME VALUE` or `NAME=VALUE`, NAME compared after
// ceph_normal(). Advances `i` past a detached value.
std::optional<std::string> ceph_option(const std::vector<std::string>& v, size_t& i,
                                       std::initializer_list<std::string_view> names) {
  const std::string arg = ceph_normal(v[i]);
  for (std::string_view name : names) {
    const std::string n = ceph_normal(name);
    if (!starts_with(arg, n)) continue;
    if (arg.size() == n.size()) {
      if (i + 1 >= v.size()) return std::nullopt;  // Ceph: "requires an argument", exit
      return v[++i];
    }
    if (arg[n.size()] == '=') return v[i].substr(n.size() + 1);
  }
  return std::nullopt;
}

// What a Ceph tool's options say about its monitors and its config file.
struct CephOptions {
  std::optional<std::string> mon_host;  // the last Ceph spelling's value
  std::string mon_host_where;
  std::vector<std::pair<std::string, std::string>> doubtful;  // {value, spelling}
  std::optional<std::string> conf;
  std::string cluster = "ceph";
};

// `args` as Ceph sees them: the command line's options (up to "--"), then
// CEPH_ARGS's (env_to_vec()).
CephOptions scan_ceph_options(const std::vector<std::string>& args, const CephEnvironment& env) {
  std::vector<std::pair<std::string, std::string>> options;  // {arg, origin}
  for (const auto& a : args) {
    if (a == "--") break;
    options.emplace_back(a, "");
  }
  if (env.ceph_args) {
    size_t start = 0;
    const std::string& text = *env.ceph_args;
    while (start < text.size()) {
      size_t end = text.find(' ', start);
      if (end == std::string::npos) end = text.size();
      if (end > start) {
        std::string word = text.substr(start, end - start);
        if (word == "--") break;
        options.emplace_back(word, "CEPH_ARGS ");
      }
      start = end + 1;
    }
  }
  std::vector<std::string> v;
  for (const auto& o : options) v.push_back(o.first);
  CephOptions out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string origin = options[i].second;
    const std::string spelled = v[i].substr(0, v[i].find('='));
    if (auto m = ceph_option(v, i, {"--mon_host", "-m"})) {
      out.mon_host = *m;
      out.mon_host_where = origin + spelled;
    } else if (auto c = ceph_option(v, i, {"--conf", "-c"})) {
      out.conf = *c;
    } else if (auto name = ceph_option(v, i, {"--cluster"})) {
      out.cluster = *name;
    } else if (starts_with(v[i], "-m") && v[i].size() > 2) {
      // rbd's boost options take -mVALUE; Ceph's parser does not.
      out.doubtful.emplace_back(v[i].substr(2), origin + "-m" + v[i].substr(2));
    } else if (const std::string n = ceph_normal(spelled);
               n.size() >= 5 && n.size() < 10 && starts_with("--mon_host", n)) {
      // A prefix of --mon_host, which boost's option guessing may take.
      std::string value;
      if (v[i].find('=') != std::string::npos)
        value = v[i].substr(v[i].find('=') + 1);
      else if (i + 1 < v.size())
        value = v[++i];
      out.doubtful.emplace_back(value, origin + spelled);
    }
  }
  return out;
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

// The config file's monitors into `out` (where "mon_host in FILE"), or why
// they cannot be read into out.unknown.
void add_config_file(Named& out, const std::optional<std::string>& chosen, const char* chosen_by,
                     const CephEnvironment& env, const std::string& cluster) {
  std::vector<std::string> candidates;
  std::string by;
  if (chosen) {
    for (std::string_view w : words_of(*chosen, false)) candidates.emplace_back(w);
    by = chosen_by;
  } else if (env.ceph_conf && !env.ceph_conf->empty()) {
    for (std::string_view w : words_of(*env.ceph_conf, false)) candidates.emplace_back(w);
    by = "CEPH_CONF";
  } else {
    candidates = {"/etc/ceph/" + cluster + ".conf"};
    if (!env.home.empty()) candidates.push_back(env.home + "/.ceph/" + cluster + ".conf");
    candidates.push_back(cluster + ".conf");
    by = "Ceph's default search";
  }
  std::string tried;
  for (const auto& path : candidates) {
    tried += (tried.empty() ? "" : ", ") + quote(path);
    if (!path_exists(path)) continue;
    std::string text;
    try {
      text = read_trusted_config(path, 1 << 20);
    } catch (const Error& e) {
      out.unknown = "the Ceph config file " + quote(path) + " (" + by +
                    ") that would name the monitors cannot be trusted or read: " + e.describe();
      return;
    }
    const std::vector<std::string> mons = config_file_monitors(text);
    if (mons.empty()) {
      out.unknown = "no monitors are named on the command line, and the Ceph config file " +
                    quote(path) + " (" + by + ") has no mon_host";
      return;
    }
    for (const auto& m : mons) add_list(out, m, "mon_host in " + path, false);
    return;
  }
  out.unknown =
      "no monitors are named on the command line, and no Ceph config file exists to "
      "name them (" +
      by + ": " + tried + ")";
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
  std::string section;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
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
    const std::string key = conf_key(line.substr(0, eq));
    std::string value(trimmed(std::string_view(line).substr(eq + 1)));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    const bool client =
        section == "global" || section == "client" || starts_with(section, "client.");
    const bool mon = section == "mon" || starts_with(section, "mon.");
    if ((client && key == "mon_host") || (mon && key == "mon_addr")) out.push_back(value);
  }
  return out;
}

Named rbd_monitors(const std::vector<std::string>& args, const CephEnvironment& env) {
  Named out;
  const CephOptions o = scan_ceph_options(args, env);
  if (o.mon_host) add_list(out, *o.mon_host, o.mon_host_where, false);
  for (const auto& [value, spelled] : o.doubtful) add_list(out, value, spelled, false);
  // Neither -m nor --mon_host: Ceph reads the config file (and so do we,
  // beside any -mVALUE, which must agree with it).
  if (!o.mon_host) add_config_file(out, o.conf, "-c/--conf", env, o.cluster);
  return out;
}

Named mount_ceph_monitors(const std::vector<std::string>& args, const CephEnvironment& env) {
  Named out;
  bool have_source = false;
  std::optional<std::string> conf;
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
      if (auto split = arg.find(":/"); split != std::string_view::npos && split > 0)
        add_list(out, arg.substr(0, split), "the mount source", false);
      continue;
    } else {
      continue;
    }
    // -o a=b,c,mon_host=M1,M2,d=e: mon_host's list runs on over the words
    // that have no '=' (a flag such as `noshare` is then read as a host name,
    // which matches no monitor: the call is refused, never guessed).
    auto words = words_of(options, false);
    for (size_t w = 0; w < words.size(); ++w) {
      if (starts_with(words[w], "mon_addr="))
        add_list(out, words[w].substr(9), "mon_addr= in -o", true);
      if (starts_with(words[w], "conf=")) conf = std::string(words[w].substr(5));
      if (starts_with(words[w], "mon_host=")) {
        std::string list(words[w].substr(9));
        while (w + 1 < words.size() && words[w + 1].find('=') == std::string_view::npos)
          list += "," + std::string(words[++w]);
        add_list(out, list, "mon_host= in -o", false);
      }
    }
  }
  // No monitors in the source or the options: mount.ceph asks the config file.
  if (!out.named() && out.unknown.empty()) {
    CephEnvironment no_args = env;
    no_args.ceph_args.reset();
    add_config_file(out, conf, "conf= in -o", no_args, "ceph");
  }
  return out;
}

}  // namespace netns::exec::shim
