#pragma once
// The monitors a Ceph command connects to, read the way Ceph reads them: what
// transparent mode uses to tell which cluster `rbd ...` or `mount.ceph ...`
// talks to.
//
// Where ceph-csi puts them (ceph-csi internal/rbd, internal/cephfs/mounter):
//   rbd --id ID -m MON[,MON...] --keyfile=F map POOL/IMAGE ...
//   mount -t ceph MON[,MON...]:/PATH TARGET -o name=ID,secretfile=F,...
// which mount(8) turns into `mount.ceph SOURCE TARGET -o OPTIONS`; the newer
// device syntax (NAME@FSID.FS=/PATH) carries them as -o mon_addr=M1/M2.
// A monitor is written host, host:port, [v6]:port, v1:/v2: prefixed, a
// bracketed address vector [v2:h:3300,v1:h:6789], or with a /nonce.
//
// Ceph's own precedence (what a call may carry is an allow-list: Ceph's
// options below, the tool row's own, tools.hpp; any other word of a
// session-opening call is not understood, and the call refused):
//   - argv's options (up to "--"), then CEPH_ARGS's (split on blanks): the
//     last of each wins; `-m V`, `-m=V`, `--mon-host V`, `--mon_host[=]V`
//     (a dash and an underscore are the same after the leading "--");
//   - the config file is always read (-c/--conf or conf=, the first of the
//     list that exists; else CEPH_CONF; else /etc/ceph/$cluster.conf,
//     ~/.ceph/$cluster.conf, ./$cluster.conf, $cluster from --cluster):
//     [global] < [client] < [client.ID], each key known, the command line's
//     value winning over the file's;
//   - then MonMap::build_initial()'s order: monmap (-M: refused, the shim
//     cannot read one) > mon_host_override > mon_host > [mon.X] mon_addr >
//     DNS SRV (refused: no monitor named).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns_exec/shim/addresses.hpp"

namespace netns::exec::shim {

struct Tool;

inline constexpr uint16_t kMsgr2Port = 3300;  // v2: and the default
inline constexpr uint16_t kMsgr1Port = 6789;  // v1: and the legacy default

// Every monitor in a list ("a:6789,b", "[v2:a:3300,v1:a:6789] b", "a/b" with
// slash_separated). A word that is no monitor address goes to `bad`.
struct MonitorList {
  std::vector<Server> monitors;
  std::vector<std::string> bad;
};
MonitorList parse_monitors(std::string_view list, bool slash_separated = false);

// Whether `reading` (one reading of a named host, with its ports) is the
// monitor `m`: a reading in common and a port in common.
bool same_monitor(std::string_view reading, const std::set<uint16_t>& ports, const Server& m);

// What Ceph's tools read besides argv.
struct CephEnvironment {
  std::optional<std::string> ceph_args;  // CEPH_ARGS
  std::optional<std::string> ceph_conf;  // CEPH_CONF
  std::string home;                      // HOME, for ~/.ceph/$cluster.conf
};

// rbd's arguments (argv without argv[0]) as Ceph reads them, with CEPH_ARGS
// and the config file.
Named rbd_monitors(const Tool& tool, const std::vector<std::string>& args,
                   const CephEnvironment& env);

// mount.ceph's arguments: the monitors of a MONS:/PATH source and those of
// mon_addr= (slash-separated) in the last -o (mount.ceph keeps only that
// one), with a mon_host_override of CEPH_ARGS or the config file beside
// them (whichever the kernel takes, a held cluster among them must not be
// missed); with none, the config file's (-o conf=FILE, else as rbd).
Named mount_ceph_monitors(const Tool& tool, const std::vector<std::string>& args,
                          const CephEnvironment& env);

// Ceph's own options and config keys the shim knows (monitors.cpp cites
// where Ceph defines each group): for explain and the tests.
const std::vector<Option>& ceph_config_options();

// mon_host (and [mon.X] mon_addr) from a Ceph config file's text.
std::vector<std::string> config_file_monitors(std::string_view text);

}  // namespace netns::exec::shim
