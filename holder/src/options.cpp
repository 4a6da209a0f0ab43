#include "options.hpp"

#include <getopt.h>

#include <charconv>
#include <cstdint>
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

// getopt_long's values for the long options: above every char, so an optopt
// names a long option only when it is one of these.
enum Opt : int {
  kClusterId = 0x100,
  kDir,
  kSocket,
  kAllowHostNetns,
  kRequireInterface,
  kRequireReachable,
  kAllowUid,
  kHelp,
  kVersion,
};

// `check` takes a subset: --socket, --allow-uid, --allow-host-netns and
// --version are unknown options there, as any other.
constexpr option kHoldOptions[] = {
    {"cluster-id", required_argument, nullptr, kClusterId},
    {"dir", required_argument, nullptr, kDir},
    {"socket", no_argument, nullptr, kSocket},
    {"allow-uid", required_argument, nullptr, kAllowUid},
    {"allow-host-netns", no_argument, nullptr, kAllowHostNetns},
    {"require-interface", required_argument, nullptr, kRequireInterface},
    {"require-reachable", required_argument, nullptr, kRequireReachable},
    {"help", no_argument, nullptr, kHelp},
    {"version", no_argument, nullptr, kVersion},
    {nullptr, 0, nullptr, 0},
};
constexpr option kCheckOptions[] = {
    {"cluster-id", required_argument, nullptr, kClusterId},
    {"dir", required_argument, nullptr, kDir},
    {"require-interface", required_argument, nullptr, kRequireInterface},
    {"require-reachable", required_argument, nullptr, kRequireReachable},
    {"help", no_argument, nullptr, kHelp},
    {nullptr, 0, nullptr, 0},
};

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

// The long option whose value is `val`, or nullptr.
const option* find_option(const option* table, int val) {
  for (; table->name != nullptr; ++table)
    if (table->val == val) return table;
  return nullptr;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  int first = 0;  // the element getopt_long sees as argv[0]: the program, or `check`
  if (argc > 1 && std::strcmp(argv[1], "check") == 0) {
    o.command = Command::check;
    first = 1;
  }
  const bool check = o.command == Command::check;
  const option* table = check ? kCheckOptions : kHoldOptions;
  auto unknown = [&](std::string_view arg) {
    return usage("unknown option " + quote(arg) + "; " + (check ? "check" : "netns-holder") +
                 " takes " + std::string(check ? kCheckFlags : kHoldFlags));
  };
  bool have_id = false, have_dir = false;
  // "+": stop at the first argument that is not an option (it is an error
  // below) instead of moving it to the end; ":": a missing value returns ':'.
  // No short options: -h is recognized below, as the whole argument only.
  // opterr = 0 keeps getopt's own messages off stderr; optind = 0 starts it
  // afresh.
  ::opterr = 0;
  ::optind = 0;
  const int n = argc - first;
  char** args = argv + first;
  for (;;) {
    // No clustered short options are accepted, so each call starts at a whole
    // argument: args[at] is the one getopt_long reads now.
    const int at = ::optind == 0 ? 1 : ::optind;
    // getopt_long takes "--" as the end of the options; here it is unknown.
    if (at < n && std::strcmp(args[at], "--") == 0) throw unknown(args[at]);
    const int c = ::getopt_long(n, args, "+:", table, nullptr);
    if (c == -1) break;
    const std::string_view arg = args[at];
    const std::string_view name = arg.substr(0, arg.find('='));
    // The long option getopt_long matched, then the name as written: getopt_long
    // also takes unambiguous abbreviations (--clus), which are not options here.
    const option* opt = find_option(table, c == '?' || c == ':' ? ::optopt : c);
    if (opt == nullptr) {
      if (c == '?' && ::optopt == 'h' && arg == "-h") {
        o.command = Command::help;
        return o;
      }
      throw unknown(arg);
    }
    if (name.substr(2) != opt->name || name.substr(0, 2) != "--") throw unknown(arg);
    if (c == ':') throw usage(std::string(name) + " needs a value");
    if (c == '?')
      throw usage(std::string(name) + " takes no value, got " + quote(arg.substr(name.size() + 1)));
    switch (c) {
      case kHelp:
        o.command = Command::help;
        return o;
      case kVersion:
        o.command = Command::version;
        return o;
      case kClusterId:
        if (have_id)
          throw usage("--cluster-id is given twice (one holder holds one cluster's namespace)");
        o.cluster_id = ::optarg;
        validate_cluster_id(o.cluster_id);
        have_id = true;
        break;
      case kDir:
        if (have_dir) throw usage("--dir is given twice");
        o.dir = ::optarg;
        if (o.dir.empty()) throw usage("--dir \"\" is empty; give the directory to publish in");
        have_dir = true;
        break;
      case kSocket:
        o.socket = true;
        break;
      case kAllowHostNetns:
        o.allow_host_netns = true;
        break;
      case kRequireInterface:
        validate_interface_name(::optarg);
        o.require_interfaces.push_back(::optarg);
        break;
      case kRequireReachable:
        o.require_reachable.push_back(parse_reach_target(::optarg));
        break;
      case kAllowUid:
        o.allow_uids.push_back(parse_uid(::optarg));
        break;
    }
  }
  if (::optind < n)
    throw usage("unexpected argument " + quote(args[::optind]) + "; " +
                (check ? "check" : "netns-holder") +
                " takes only options: " + std::string(check ? kCheckFlags : kHoldFlags));
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
