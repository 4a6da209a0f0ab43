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
// is never served from the plugin's own namespace. The first entry that
// matches wins, in the order written.
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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netns::exec::shim {

inline constexpr const char* kTargetsVariable = "NETNS_EXEC_TARGETS";

struct DeclaredHolder {
  std::string id;
  std::vector<std::string> addresses;  // as written: addresses, CIDRs, names
};

// NETNS_EXEC_TARGETS's value. Throws Error(invalid_argument) naming the
// variable and quoting the bad entry (no '=', an invalid holder ID, an empty
// list, a CIDR with a bad prefix length).
std::vector<DeclaredHolder> parse_targets(std::string_view text);

// The address as the comparison sees it: an IP address as inet_ntop writes
// it, brackets removed; a name lower-cased.
std::string canonical_address(std::string_view host);

// Whether `host` (canonical) is `declared` (an address, a CIDR or a name).
bool address_matches(std::string_view host, std::string_view declared);

struct TargetMatch {
  std::string id;
  std::string declared;  // the entry that matched
};
// The first holder one of whose declared addresses `host` is.
std::optional<TargetMatch> holder_serving(const std::vector<DeclaredHolder>& holders,
                                          std::string_view host);

// What a command line names as its server.
struct NamedTarget {
  std::string host;   // canonical
  std::string text;   // as written
  std::string where;  // "-a", "--traddr", "the mount source"
};

// nvme's arguments (argv without argv[0]): the traddr of connect,
// connect-all and discover; nullopt for every other subcommand and when none
// is given.
std::optional<NamedTarget> nvme_target(const std::vector<std::string>& args);

// Whether nvme's arguments are a connect, connect-all or discover (the
// subcommands that open connections), not asking for help. One that names
// no address takes its targets from /etc/nvme/discovery.conf or a -J
// config: the shim cannot tell whose they are.
bool nvme_connects(const std::vector<std::string>& args);

// mount.nfs's arguments: the server of the first non-option word
// (SERVER:/EXPORT or [V6]:/EXPORT); nullopt when there is none.
std::optional<NamedTarget> nfs_server(const std::vector<std::string>& args);

}  // namespace netns::exec::shim
