#include "options.hpp"

#include <cstring>
#include <string_view>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "readiness.hpp"

namespace netns::holder {

namespace {

constexpr std::string_view kHoldFlags =
    "--cluster-id, --dir, --socket, --allow-uid, --allow-host-netns, --require-interface, "
    "--require-reachable, --help, --version";
constexpr std::string_view kCheckFlags =
    "--cluster-id, --dir, --require-interface, --require-reachable, --help";

Error usage(std::string message, std::string hint = "run netns-holder --help") {
  return Error(Errc::invalid_argument, std::move(message), std::move(hint));
}

uid_t parse_uid(std::string_view text) {
  // Decimal only: a user name would need NSS, which a static binary cannot
  // load, and (uid_t)-1 means "no uid" to the kernel.
  constexpr uint64_t kMax = 4294967294u;
  uint64_t value = 0;
  bool ok = !text.empty() && text.size() <= 10;
  for (char c : text) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok || value > kMax)
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
  bool have_id = false, have_dir = false;
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view name = arg;
    std::string_view inline_value;
    bool has_inline = false;
    if (arg.size() > 2 && arg.substr(0, 2) == "--") {
      if (auto eq = arg.find('='); eq != std::string_view::npos) {
        name = arg.substr(0, eq);
        inline_value = arg.substr(eq + 1);
        has_inline = true;
      }
    }
    auto value = [&]() -> std::string {
      if (has_inline) return std::string(inline_value);
      if (i + 1 >= argc) throw usage(std::string(name) + " needs a value");
      return argv[++i];
    };
    auto no_value = [&] {
      if (has_inline)
        throw usage(std::string(name) + " takes no value, got " + quote(inline_value));
    };
    if (name == "--help" || name == "-h") {
      no_value();
      o.command = Command::help;
      return o;
    }
    if (name == "--version" && !check) {
      no_value();
      o.command = Command::version;
      return o;
    }
    if (name == "--cluster-id") {
      if (have_id)
        throw usage("--cluster-id is given twice (one holder holds one cluster's namespace)");
      o.cluster_id = value();
      validate_cluster_id(o.cluster_id);
      have_id = true;
    } else if (name == "--dir") {
      if (have_dir) throw usage("--dir is given twice");
      o.dir = value();
      if (o.dir.empty()) throw usage("--dir \"\" is empty; give the directory to publish in");
      if (o.dir.find('\0') != std::string::npos) throw usage("--dir contains a NUL byte");
      have_dir = true;
    } else if (name == "--socket" && !check) {
      no_value();
      o.socket = true;
    } else if (name == "--allow-host-netns" && !check) {
      no_value();
      o.allow_host_netns = true;
    } else if (name == "--require-interface") {
      std::string ifname = value();
      validate_interface_name(ifname);
      o.require_interfaces.push_back(ifname);
    } else if (name == "--require-reachable") {
      o.require_reachable.push_back(parse_reach_target(value()));
    } else if (name == "--allow-uid" && !check) {
      o.allow_uids.push_back(parse_uid(value()));
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw usage("unknown option " + quote(arg) + "; " + (check ? "check" : "netns-holder") +
                  " takes " + std::string(check ? kCheckFlags : kHoldFlags));
    } else {
      throw usage("unexpected argument " + quote(arg) + "; " + (check ? "check" : "netns-holder") +
                  " takes only options: " + std::string(check ? kCheckFlags : kHoldFlags));
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
