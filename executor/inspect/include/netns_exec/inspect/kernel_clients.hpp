#pragma once
// The kernel Ceph clients on this node, and which of them nobody serves.
//
// A krbd mapping or a kernel CephFS mount keeps its sessions in the network
// namespace it was made in, for its whole life. When that namespace loses
// its interfaces (a holder pod sandbox recreated by a containerd restart, a
// force-deleted holder pod: CNI DEL removes the interfaces, the mapping keeps
// the namespace) the mapping hangs, and nothing else on the node says which
// device is affected. This reads what the kernel exposes about each client
// and compares its address with the addresses of the namespaces that still
// serve mappings (each live holder's, the node's own): a client address that
// is in none of them belongs to a namespace that is gone.
//
// What the kernel exposes (drivers/block/rbd.c, fs/ceph/debugfs.c,
// net/ceph/debugfs.c):
//   /sys/bus/rbd/devices/N/{pool,pool_ns,name,current_snap,client_id,client_addr}
//     client_addr is "IP:PORT/NONCE" ("[IPv6]:PORT/NONCE"), the address the
//     cluster sees the client at (Linux 5.4+);
//   /sys/kernel/debug/ceph/<fsid>.client<id>/ for every libceph client; a
//     CephFS client's has `status` ("instance: client.ID IP:PORT/NONCE",
//     Linux 5.11+) and every one has `monmap` ("\tmonN\tIP:PORT" lines);
//   /proc/self/mountinfo lists the ceph mounts, whose source names the
//     monitors ("198.18.0.1:6789:/path") or the fsid ("user@FSID.fs=/path").
// A mount is tied to the CephFS clients of its cluster (the fsid, or a
// monitor address the client's monmap lists); it is flagged only when every
// such client is unserved (the kernel does not say which client a mount uses
// when one cluster has several).
//
// Limit: the comparison is by IP. A new holder sandbox that is given the old
// one's IP (static IPAM) makes a stranded client look served.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netns/client_addresses.hpp"

namespace netns::inspect {

// Where the kernel's files are read; a node-check pod that mounts the host's
// /sys elsewhere (and the tests' stand-in trees) point them there.
struct KernelRoots {
  std::string sys_bus_rbd = "/sys/bus/rbd";
  std::string ceph_debugfs = "/sys/kernel/debug/ceph";
  std::string mountinfo = "/proc/self/mountinfo";
};

struct RbdMapping {
  std::string id;           // N of /sys/bus/rbd/devices/N
  std::string device;       // /dev/rbdN
  std::string image;        // pool[/namespace]/image[@snap]
  std::string client;       // "client4181"
  std::string client_addr;  // as the kernel wrote it
  std::string ip;           // its IP, "" when it could not be read
  std::string problem;      // why the address is unknown
};

struct CephClient {  // one libceph client with a CephFS `status` (a mount's)
  std::string dir;   // <fsid>.client<id>
  std::string fsid;
  std::string instance;  // "client.4181"
  std::string client_addr;
  std::string ip;
  std::vector<std::string> monitor_ips;
};

struct CephMount {
  std::string mount_point;
  std::string source;
  std::vector<std::string> clients;  // CephClient::dir of its cluster's clients
};

struct KernelClients {
  std::vector<RbdMapping> rbd;
  std::vector<CephClient> cephfs_clients;
  std::vector<CephMount> mounts;
  bool debugfs_readable = false;   // false: mounts' clients cannot be known here
  std::vector<std::string> notes;  // what could not be read and why
};

// Never throws for an absent tree (no krbd module, no debugfs, not root):
// that is an empty list and a note.
KernelClients read_kernel_clients(const KernelRoots& roots);

// A namespace that serves mappings: its description ("holder \"ceph-a\"
// (pid 812)", "the node's namespace") and its client addresses.
struct ServingNamespace {
  std::string what;
  std::vector<ClientAddress> addresses;
};

struct MappingVerdict {
  std::string kind;                      // "rbd" or "cephfs"
  std::string object;                    // "/dev/rbd0" or the mount point
  std::string image;                     // rbd: pool/image; cephfs: the mount source
  std::string address;                   // the client's IP ("" unknown)
  std::optional<std::string> served_by;  // ServingNamespace::what
  bool orphaned = false;                 // no serving namespace has the address
  std::string meaning;                   // one sentence for the operator
};

// Each rbd mapping and each ceph mount, judged. A mapping whose address is
// unknown is not orphaned (its meaning says what could not be read).
std::vector<MappingVerdict> judge_mappings(const KernelClients& clients,
                                           const std::vector<ServingNamespace>& serving);

// "[{"kind","object","image","address","served_by","orphaned","meaning"}]"
nlohmann::ordered_json mappings_json(const std::vector<MappingVerdict>& verdicts);

// The IP of a kernel-printed entity address ("198.18.0.5:0/3127",
// "[2001:db8::5]:0/9"); "" when it is not one.
std::string entity_addr_ip(std::string_view text);

}  // namespace netns::inspect
