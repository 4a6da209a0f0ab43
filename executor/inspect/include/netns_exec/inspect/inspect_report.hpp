#pragma once
// `netns-exec inspect`: everything an operator needs to see about a holder's
// namespace, gathered without spawning (policy here; the mechanism is in
// rtnl.hpp, sock_diag.hpp and socket_owners.hpp), and rendered as an aligned
// table or as stable JSON (fields documented in executor/inspect/JSON.md).
#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "netns/holder_record.hpp"
#include "netns/holder_ref.hpp"
#include "netns/nsfd.hpp"
#include "netns_exec/inspect/ceph_ports.hpp"
#include "netns_exec/inspect/rtnl.hpp"
#include "netns_exec/inspect/sock_diag.hpp"

namespace netns::inspect {

// What the caller knows about where the namespace came from (the executor's
// resolver fills it).
struct Identity {
  std::string path;        // the namespace file or socket; "" if none
  std::string cluster_id;  // "" if unknown
  NsId netns;
  std::optional<HolderRecord> record;
};

struct Report {
  Identity identity;
  // From the record: whether its holder is still alive (the record check's
  // liveness, trust::holder_alive, on the holder resolve() verified; nullopt:
  // no record, or the record is from another pid namespace), and its age.
  std::optional<bool> holder_alive;
  std::optional<uint64_t> age_seconds;

  std::vector<Link> links;
  std::vector<Address> addresses;
  std::vector<Route> routes;
  std::vector<InetSocket> sockets;
  CephPorts ports;
  std::vector<PeerSessions> sessions;
  // The socket inodes whose owner was looked up in /proc (uid-0 Ceph sessions
  // and UDP sockets), and of those, inode -> pid of a process holding it.
  std::unordered_set<uint64_t> looked_up;
  std::unordered_map<uint64_t, pid_t> owners;
  bool owners_scanned = false;

  // True when no visible process holds `s`: a kernel socket (krbd/CephFS
  // sessions, vxlan). Inode 0 counts for live connections and UDP sockets
  // (TIME-WAIT, SYN-RECV and orphaned closing entries also have no inode and
  // are not the kernel's); sockets that were not looked up never count.
  [[nodiscard]] bool is_kernel_socket(const InetSocket& s) const;
  [[nodiscard]] std::vector<InetSocket> kernel_sockets() const;
};

struct CollectOptions {
  CephPorts ports;
  // Scan /proc/*/fd to tell kernel sockets from process sockets.
  bool find_owners = true;
  // The record's holder as resolve() verified it (its pidfd), if any:
  // whether it is still alive is asked of it.
  HolderRef* holder = nullptr;
};

// Creates the netlink sockets inside `nsfd` (on a thread of its own) and
// reads links, addresses, routes and sockets.
Report collect_report(int nsfd, std::string_view shown, Identity identity,
                      const CollectOptions& options = {});

// The aligned text form. `all_sockets` adds every socket, ss-style.
std::string render_table(const Report& report, bool all_sockets = false);
// The JSON form (format 1). `all_sockets` adds the "sockets" array.
nlohmann::ordered_json render_json(const Report& report, bool all_sockets = false);

// Each part's JSON (the fields of JSON.md), for nlohmann's to_json: render_json
// puts them together and adds what is the Report's, not the part's own (a
// link's "addresses", a session's "sockets", a socket's "kernel").
void to_json(nlohmann::ordered_json& j, const Link& l);
void to_json(nlohmann::ordered_json& j, const Address& a);
void to_json(nlohmann::ordered_json& j, const Route& r);
void to_json(nlohmann::ordered_json& j, const InetSocket& s);
void to_json(nlohmann::ordered_json& j, const CephPorts& p);
void to_json(nlohmann::ordered_json& j, const PeerSessions& g);

// A socket as JSON with its "kernel" flag (null: not looked up).
nlohmann::ordered_json socket_json(const InetSocket& s, std::optional<bool> kernel);

}  // namespace netns::inspect
