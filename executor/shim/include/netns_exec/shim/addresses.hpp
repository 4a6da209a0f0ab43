#pragma once
// How a server's host, as a command writes it, is read by the programs that
// consume it, and the one comparison of such readings with what the operator
// declared. Transparent mode compares every reading: a spelling two
// consumers read differently must not be routed by the one the shim happens
// to pick.
//
// The consumers differ (measured against their sources):
//   - inet_pton (strict dotted quad, IPv6): what every consumer accepts alike;
//   - glibc's getaddrinfo/inet_aton, used by mount.nfs, mount.ceph, rbd (for
//     a monitor Ceph's own parser rejects) and nvme-cli (for a traddr that
//     inet_pton rejects): octal and hex parts ("010" is 8), short forms
//     ("198.18.1036"), and otherwise a DNS name;
//   - the kernel's in4_pton (a traddr handed on as written, a mount source):
//     four decimal parts, leading zeros allowed ("010" is 10).
// IPv6: brackets and a zone id ("%eth0") are not part of the address; an
// IPv4-mapped address (::ffff:198.18.0.1) reaches the IPv4 host.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace netns::exec::shim {

// `text` without the blanks around it (the shim's readers of lists and
// config files).
std::string_view trimmed(std::string_view text);

// `text` cut at every `sep`, empty pieces kept.
std::vector<std::string_view> split(std::string_view text, char sep);

struct AddressReadings {
  // Every distinct address a consumer may read `host` as, in inet_ntop form
  // (IPv4 for a mapped IPv6 address).
  std::vector<std::string> addresses;
  // The name a consumer may look up instead ("" when every consumer reads an
  // address): lower-cased, without a trailing dot.
  std::string name;
  [[nodiscard]] bool agree() const { return addresses.size() + !name.empty() == 1; }
  // "198.18.4.16 (glibc), 198.18.4.20 (the kernel)": for messages.
  std::string text;
};
AddressReadings read_host(std::string_view host);

// One server a command names: a monitor address (with the ports it may be
// reached at) or an NVMe/NFS target (no ports: any).
struct Server {
  std::string text;  // as written ("v2:198.18.0.1:3300", "[fd00::2]")
  AddressReadings host;
  std::set<uint16_t> ports;
};

// What a call names, and where: the servers it will connect to, or why that
// cannot be told (`unknown`: then nothing may route it by guess).
struct Named {
  std::string text;   // as written, for messages ("" when none)
  std::string where;  // "-m", "CEPH_ARGS --mon_host", "mon_host in /etc/ceph/ceph.conf", ...
  std::vector<Server> servers;
  std::string unknown;  // non-empty: the servers could not be determined, and why
  // Non-empty: a word of the call (an option, a key, an abbreviation) that
  // no allow-list of the tool's row knows, and where it stands. A
  // session-opening call carrying one is refused, whatever it names.
  std::string not_understood;
  [[nodiscard]] bool named() const { return !servers.empty(); }
  // Keeps the first word not understood: "\"--mon-h\" (argv)".
  void not_understand(std::string_view word, std::string_view place);
};

// What a word of a tool's allow-list is to the decision. Every word a
// session-opening call carries must be one of these; `harmless` ones cannot
// change where the call connects (the tool row's comments say why).
enum class Means {
  harmless,
  mon_host,           // Ceph mon_host (-m): the monitors
  mon_host_override,  // Ceph mon_host_override: wins over mon_host
  monmap,             // Ceph monmap (-M): a binary map the shim cannot read
  mon_addr,           // mount.ceph mon_addr=, slash-separated monitors
  conf,               // the Ceph config file (-c, conf=)
  cluster,            // Ceph --cluster: the default config file's name
  id,                 // Ceph --id / name=: the [client.ID] section
  name,               // Ceph --name (TYPE.ID): the same section
  device_type,        // rbd -t: krbd or nbd
  map_options,        // rbd -o: krbd's kernel options, or rbd-nbd's options
  options,            // mount helpers' -o: checked against the row's keys
  target,             // nvme -a, mount.nfs addr=: the server
};

// One word of an allow-list: every spelling (space-separated: "-m --mon_host"),
// whether it takes a value, and what it means.
struct Option {
  std::string_view names;
  bool value;
  Means means;
};

// The option of `table` one of whose spellings is `spelled` (a spelling
// ending in "*" is a prefix: "x-*"), else nullptr.
const Option* find_option(const std::vector<Option>& table, std::string_view spelled);

// A declared address, network or name (NETNS_EXEC_TARGETS; config.json's
// monitors), in the form matches() compares.
struct Declared {
  std::string text;     // as written
  std::string address;  // inet_ntop form of the address or network ("" for a name)
  unsigned prefix = 0;  // network length; 32/128 for a single address
  std::string name;     // lower-cased name ("" for an address)
  bool ipv6 = false;
};
// Strict: an address, ADDR/LEN or a name that is no mistyped address
// ("198.18.4.020" is refused: consumers read it differently). Throws
// Error(invalid_argument) naming `what` (the variable or file) and `text`.
Declared parse_declared(std::string_view text, std::string_view what);

// How specifically `declared` covers `reading` (an inet_ntop address or a
// name): -1 when it does not, else the prefix length (a name: 129, above any
// network).
int coverage(const Declared& declared, std::string_view reading);

}  // namespace netns::exec::shim
