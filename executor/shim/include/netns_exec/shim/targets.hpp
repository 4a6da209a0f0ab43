#pragma once
// The kernel clients that have no ceph-csi config.json to say whose a server
// is (NVMe/TCP through `nvme`, NFS through `mount.nfs`): the operator
// declares which target addresses each holder serves, once, in the plugin's
// environment (the chart renders it from `targets[]`):
//
//   NETNS_EXEC_TARGETS="ID=ADDR[,ADDR...][;ID=ADDR...]"
//
// ID is the holder's ID (its <ID>.net.ns / <ID>.net.sock in
// NETNS_EXEC_HOLDER_DIR), ADDR an IP address, a CIDR (198.18.4.0/24,
// fd00:4::/64) or a host name (compared lower-cased, never resolved: the
// shim does not ask DNS which namespace to use). Blanks around entries are
// ignored. Every ID declared is held: a command naming one of its addresses
// is never served from the plugin's own namespace. The most specific entry
// wins (198.18.4.0/24 before 198.18.0.0/16); the same one for two IDs is
// ambiguous, and so refused (addresses.hpp has how each reading is taken).
//
// What a command names (the argv shapes are ceph-csi's, internal/nvmeof, and
// mount(8)'s helper convention):
//   nvme connect -t tcp -n NQN -a ADDR -s PORT -l 1800 [--hostnqn H] [--dhchap-secret S]
//   nvme discover / connect-all -a ADDR ...      (--traddr ADDR, --traddr=ADDR, -aADDR)
//   mount.nfs SERVER:/EXPORT TARGET [-o OPTS]     ([v6]:/EXPORT; also mount.nfs4)
// `nvme disconnect`, `list-subsys`, `list` and the rest name no address and
// open no socket (a disconnect writes the controller's delete_controller
// attribute in sysfs, which no network namespace scopes): they are the real
// program untouched, so a controller whose holder is gone can still be
// disconnected.
#include <string>
#include <string_view>
#include <vector>

#include "netns_exec/shim/addresses.hpp"

namespace netns::exec::shim {

struct Tool;

inline constexpr const char* kTargetsVariable = "NETNS_EXEC_TARGETS";

struct DeclaredHolder {
  std::string id;
  std::vector<Declared> addresses;
};

// NETNS_EXEC_TARGETS's value. Throws Error(invalid_argument) naming the
// variable and quoting the bad entry (no '=', an invalid holder ID, an empty
// list, a bad network, an address consumers read differently).
std::vector<DeclaredHolder> parse_targets(std::string_view text);

// The holders that declare `reading` (one reading of a host: an inet_ntop
// address or a lower-cased name) most specifically: none, one, or several
// when they declare it alike (ambiguous).
std::vector<std::string> holders_covering(const std::vector<DeclaredHolder>& holders,
                                          std::string_view reading);

// Whether nvme's arguments are a connect, connect-all, discover or dim (the
// row's commands, spelled as nvme-cli matches them: leading dashes
// stripped; an abbreviation of one counts, and is refused), not asking for
// help.
bool nvme_connects(const Tool& tool, const std::vector<std::string>& args);

// nvme's arguments (argv without argv[0]): the traddr of a connecting
// subcommand (-a ADDR, -aADDR, --traddr[=]ADDR, -traddr or a unique prefix
// of it; the last one wins, as with getopt_long_only); any option the
// subcommand's allow-list lacks, or an abbreviated subcommand, is
// not_understood. A connect that names none takes its targets
// from /etc/nvme/discovery.conf or a -J config: `unknown` says so.
Named nvme_target(const Tool& tool, const std::vector<std::string>& args);

// mount.nfs's arguments: the server of the first non-option word
// (SERVER:/EXPORT or [V6]:/EXPORT), and any addr= / mountaddr= in -o (the
// kernel takes the address from there); `unknown` when there is none.
Named nfs_server(const Tool& tool, const std::vector<std::string>& args);

}  // namespace netns::exec::shim
