#pragma once
// The monitors a Ceph command names, and the one comparison of monitor
// addresses: what transparent mode uses to tell which cluster `rbd ...` or
// `mount.ceph ...` talks to.
//
// Where ceph-csi puts them (ceph-csi internal/rbd, internal/cephfs/mounter):
//   rbd --id ID -m MON[,MON...] --keyfile=F map POOL/IMAGE ...   (also ls, info, create, ...)
//   mount -t ceph MON[,MON...]:/PATH TARGET -o name=ID,secretfile=F,...
// which mount(8) turns into `mount.ceph SOURCE TARGET -o OPTIONS`; the newer
// device syntax (NAME@FSID.FS=/PATH) carries them as -o mon_addr=M1/M2.
// A monitor is written host, host:port, [v6]:port, v1:/v2: prefixed, a
// bracketed address vector [v2:h:3300,v1:h:6789], or with a /nonce.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace netns::exec::shim {

inline constexpr uint16_t kMsgr2Port = 3300;  // v2: and the default
inline constexpr uint16_t kMsgr1Port = 6789;  // v1: and the legacy default

// One address a monitor listens on: the host in canonical form (an IP
// address as inet_ntop writes it, a name lower-cased) and the ports it may
// be reached at (one when given; both defaults when the port was left out).
struct Endpoint {
  std::string host;
  std::set<uint16_t> ports;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// Every endpoint in a monitor list ("a:6789,b", "[v2:a:3300,v1:a:6789] b",
// "a/b" with slash_separated). Words that are no address are dropped.
std::vector<Endpoint> parse_monitors(std::string_view list, bool slash_separated = false);

// Two endpoints name the same monitor: the same host and a port in common.
bool same_monitor(const Endpoint& a, const Endpoint& b);
// Some endpoint of `a` is the same monitor as some endpoint of `b`.
bool share_a_monitor(const std::vector<Endpoint>& a, const std::vector<Endpoint>& b);

// What a command line says about its monitors: the text as written (for
// messages) and where it was found ("-m", "mon_addr= in -o", "the mount
// source"). Empty `text`: the command names none.
struct NamedMonitors {
  std::string text;
  std::string where;
  std::vector<Endpoint> endpoints;
  [[nodiscard]] bool named() const { return !endpoints.empty(); }
};

// rbd's arguments (argv without argv[0]): -m MONS, -mMONS, --mon-host[=]MONS,
// --mon_host[=]MONS; all of them when it is given more than once.
NamedMonitors rbd_monitors(const std::vector<std::string>& args);

// mount.ceph's arguments (argv without argv[0]): the monitors of a
// MONS:/PATH source and those of mon_addr= (slash-separated) or mon_host= in
// an -o list, all of them: whichever the kernel takes, a held cluster among
// them must not be missed.
NamedMonitors mount_ceph_monitors(const std::vector<std::string>& args);

}  // namespace netns::exec::shim
