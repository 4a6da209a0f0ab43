#include "netns_exec/inspect/inspect_report.hpp"

#include <netinet/tcp.h>

#include <ctime>
#include <unordered_set>

#include "netns/proc.hpp"
#include "netns/trust.hpp"
#include "netns_exec/inspect/netns_thread.hpp"
#include "netns_exec/inspect/socket_owners.hpp"

namespace netns::inspect {

bool Report::is_kernel_socket(const InetSocket& s) const {
  if (s.inode == 0) {
    // No struct socket at all. For TIME-WAIT, SYN-RECV and closed-but-not-gone
    // (orphaned FIN-WAIT, CLOSING, LAST-ACK) entries that is normal; a live
    // connection or a UDP socket without one was made by the kernel.
    return s.proto == Proto::udp || s.state == TCP_ESTABLISHED || s.state == TCP_SYN_SENT ||
           s.state == TCP_CLOSE_WAIT || s.state == TCP_LISTEN;
  }
  // A socket that was not looked up (see collect_report) is not reported as
  // the kernel's.
  return looked_up.contains(s.inode) && !owners.contains(s.inode);
}

std::vector<InetSocket> Report::kernel_sockets() const {
  std::vector<InetSocket> out;
  for (const auto& s : sockets)
    if (is_kernel_socket(s)) out.push_back(s);
  return out;
}

Report collect_report(int nsfd, std::string_view shown, Identity identity,
                      const CollectOptions& options) {
  Report r;
  r.identity = std::move(identity);
  r.ports = options.ports;

  if (const auto& rec = r.identity.record) {
    // A pid in the record only names the holder for readers in the holder's
    // pid namespace; elsewhere "alive" cannot be told.
    if (rec->pidns_ino == current_pidns_id().ino) {
      trust::QuietPasses quiet;
      HolderRef fresh;
      HolderRef& holder = options.holder ? *options.holder : fresh;
      r.holder_alive =
          trust::holder_alive(*rec, trust::read_holder(*rec, true, nullptr, holder), shown).ok;
    }
    auto now = static_cast<uint64_t>(::time(nullptr));
    if (now >= rec->created_unix) r.age_seconds = now - rec->created_unix;
  }

  NetlinkSockets socks = netlink_sockets_in_netns(nsfd, shown);
  {
    RtnlClient rtnl(std::move(socks.route));
    r.links = rtnl.links();
    r.addresses = rtnl.addresses();
    r.routes = rtnl.routes();
  }
  SockDiag diag(std::move(socks.diag));
  r.sockets = diag.dump_all();
  r.sessions = group_sessions(r.sockets, r.ports);

  if (options.find_owners) {
    // Only where "kernel or process?" is the question: Ceph sessions (krbd
    // and CephFS clients are the kernel's) and UDP sockets (vxlan and other
    // tunnels). Kernel sockets are created with the credentials of whoever
    // triggered them (a root `rbd map`, a kworker, `ip link`), so only uid-0
    // ones can be the kernel's. The scan costs a readlink per descriptor on
    // the node and stops as soon as every candidate is found.
    std::unordered_set<uint64_t> wanted;
    for (const auto& s : r.sockets)
      if (s.inode != 0 && s.uid == 0 && (s.proto == Proto::udp || is_ceph_session(s, r.ports)))
        wanted.insert(s.inode);
    r.owners = find_socket_owners(wanted);
    r.looked_up = std::move(wanted);
    r.owners_scanned = true;
  }
  for (auto& g : r.sessions)
    for (const auto& s : g.sockets)
      if (r.is_kernel_socket(s)) ++g.kernel;
  return r;
}

}  // namespace netns::inspect
