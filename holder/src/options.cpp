#include "options.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "readiness.hpp"

namespace netns::holder {

namespace {

enum class Opt {
  cluster_id,
  dir,
  socket,
  allow_uid,
  allow_host_netns,
  require_interface,
  require_reachable,
  help,
  version
};

// Every option, in the order --help and the messages list them. Only the whole
// name is accepted (no abbreviations), its value after "=" or as the next
// argument; -h is the one short form.
struct Flag {
  std::string_view name;
  Opt opt;
  bool takes_value;
  bool in_check;  // `check` takes it too
};
constexpr Flag kFlags[] = {
    {"cluster-id", Opt::cluster_id, true, true},
    {"dir", Opt::dir, true, true},
    {"socket", Opt::socket, false, false},
    {"allow-uid", Opt::allow_uid, true, false},
    {"allow-host-netns", Opt::allow_host_netns, false, false},
    {"require-interface", Opt::require_interface, true, true},
    {"require-reachable", Opt::require_reachable, true, true},
    {"help", Opt::help, false, true},
    {"version", Opt::version, false, false},
};

std::string flag_list(bool check) {
  std::string out;
  for (const Flag& f : kFlags)
    if (f.in_check || !check) out += (out.empty() ? "--" : ", --") + std::string(f.name);
  return out;
}

Error usage(std::string message, std::string hint = "run netns-holder --help") {
  return Error(Errc::invalid_argument, std::move(message), std::move(hint));
}

uid_t parse_uid(std::string_view text) {
  // Decimal only: a user name would need NSS, which a static binary cannot
  // load, and (uid_t)-1 means "no uid" to the kernel.
  constexpr uint64_t kMax = 4294967294u;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text.size() > 10 || ec != std::errc() || end != text.data() + text.size() ||
      value > kMax)
    throw usage("--allow-uid " + quote(text) + " is not a numeric uid (0-4294967294)");
  return static_cast<uid_t>(value);
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  int i = 1;
  if (argc > 1 && std::strcmp(argv[1], "check") == 0) {
    o.command = Command::check;
    i = 2;
  }
  const bool check = o.command == Command::check;
  const std::string_view who = check ? "check" : "netns-holder";
  bool have_id = false, have_dir = false;
  for (; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h") {
      o.command = Command::help;
      return o;
    }
    if (!arg.starts_with("--") || arg == "--") {
      if (arg.starts_with("-"))
        throw usage("unknown option " + quote(arg) + "; " + std::string(who) + " takes " +
                    flag_list(check));
      throw usage("unexpected argument " + quote(arg) + "; " + std::string(who) +
                  " takes only options: " + flag_list(check));
    }
    const size_t eq = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    const Flag* flag = nullptr;
    for (const Flag& f : kFlags)
      if (name.substr(2) == f.name && (f.in_check || !check)) flag = &f;
    if (flag == nullptr)
      throw usage("unknown option " + quote(arg) + "; " + std::string(who) + " takes " +
                  flag_list(check));
    std::string value;
    if (!flag->takes_value) {
      if (eq != std::string_view::npos)
        throw usage(std::string(name) + " takes no value, got " + quote(arg.substr(eq + 1)));
    } else if (eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw usage(std::string(name) + " needs a value");
    }
    switch (flag->opt) {
      case Opt::help:
        o.command = Command::help;
        return o;
      case Opt::version:
        o.command = Command::version;
        return o;
      case Opt::cluster_id:
        if (have_id)
          throw usage("--cluster-id is given twice (one holder holds one cluster's namespace)");
        o.cluster_id = value;
        validate_cluster_id(o.cluster_id);
        have_id = true;
        break;
      case Opt::dir:
        if (have_dir) throw usage("--dir is given twice");
        o.dir = value;
        if (o.dir.empty()) throw usage("--dir \"\" is empty; give the directory to publish in");
        have_dir = true;
        break;
      case Opt::socket:
        o.socket = true;
        break;
      case Opt::allow_host_netns:
        o.allow_host_netns = true;
        break;
      case Opt::require_interface:
        validate_interface_name(value);
        o.require_interfaces.push_back(value);
        break;
      case Opt::require_reachable:
        o.require_reachable.push_back(parse_reach_target(value));
        break;
      case Opt::allow_uid:
        o.allow_uids.push_back(parse_uid(value));
        break;
    }
  }
  if (!have_id) throw usage("--cluster-id is required");
  if (!have_dir) throw usage("--dir is required");
  if (!o.allow_uids.empty() && !o.socket)
    throw usage("--allow-uid only applies with --socket", "add --socket, or drop --allow-uid");
  if (o.socket && o.allow_uids.empty()) o.allow_uids.push_back(0);
  return o;
}

const char* usage_text() {
  return "usage: netns-holder --cluster-id ID --dir DIR [--socket] [--allow-uid UID ...] "
         "[--allow-host-netns]\n"
         "                    [--require-interface NAME ...] [--require-reachable ADDR:PORT ...]\n"
         "       netns-holder check --cluster-id ID --dir DIR [--require-interface NAME ...]\n"
         "                    [--require-reachable ADDR:PORT ...]\n"
         "       netns-holder --help | --version\n"
         "\n"
         "Keeps this process's network namespace alive and publishes it in DIR for the\n"
         "Ceph CSI node plugin, then waits for SIGTERM/SIGINT like a pause process.\n"
         "\n"
         "  --cluster-id ID   1-64 characters of A-Z a-z 0-9 . _ -, not . or .., no leading -\n"
         "  --dir DIR         shared directory (created 0755 if missing); publishes\n"
         "                    ID.lock, ID.holder.json, ID.net.ns -> /proc/PID/ns/net;\n"
         "                    it and every directory above it must be owned by root (or\n"
         "                    this holder's uid) and not writable by others (sticky /tmp is fine)\n"
         "  --socket          also serve the namespace fd on the unix socket ID.net.sock\n"
         "                    (allowed as PID 1 of a pod pid namespace; ID.net.ns is then not "
         "published)\n"
         "  --allow-uid UID   with --socket: peer uid allowed to receive the fd (repeatable; "
         "default 0)\n"
         "  --allow-host-netns  publish even when this is the host's network namespace\n"
         "  --require-interface NAME  publish only once NAME exists, is up and has an\n"
         "                    address (repeatable; the storage network's Multus interface);\n"
         "                    losing it later fails check, the files stay\n"
         "  --require-reachable ADDR:PORT  publish only once one of these monitors\n"
         "                    accepts a TCP connect from this namespace (repeatable; any one\n"
         "                    is enough; 3 s per attempt, retried); check probes it again\n"
         "  check             exec probe: exit 0 only if DIR's files for ID resolve to the\n"
         "                    namespace the probe runs in and name a live holder\n"
         "\n"
         "Exit status:\n"
         "  0  stopped by SIGTERM/SIGINT (files removed); check: healthy\n"
         "  1  runtime failure (directory, lock file, publishing, socket); check: not healthy\n"
         "  2  usage error (unknown option, bad value, invalid cluster ID)\n"
         "  3  another holder already holds ID.lock (its pid is named)\n"
         "  4  refused: symlink mode as PID 1 of a child pid namespace (use hostPID: true or "
         "--socket),\n"
         "     or the host's network namespace (no --allow-host-netns)\n";
}

}  // namespace netns::holder
