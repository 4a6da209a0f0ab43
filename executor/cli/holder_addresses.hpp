#pragma once
// The client addresses of this node's holders, read from their records, and
// of the node's own namespace: what a fence must cover (fence-info) and what
// still serves the kernel mappings on the node (doctor, inspect).
//
// A record is used only from a directory that passes the same provenance
// checks resolve() applies, and after the one record check (trust.hpp:
// trust::check_record), so a planted record cannot steer a fence or hide a
// stranded mapping. The check's findings are collected, not refused: a
// record root wrote still names addresses to fence when its holder is gone.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "netns/client_addresses.hpp"

namespace netns::cli {

struct HolderAddresses {
  std::string record_path;
  std::string cluster_id;
  pid_t pid = 0;
  // false: the record check found its holder gone (from before the last
  // reboot, exited, its pid another process now, its lock not held by it);
  // nullopt: cannot tell from here (the holder runs in another pid namespace).
  std::optional<bool> alive;
  std::optional<std::vector<ClientAddress>> addresses;
  std::string problem;  // why this holder's addresses are not (all) known
};

// ceph-csi's rbd and cephfs plugin directories under /var/lib/kubelet.
std::vector<std::string> default_holder_dirs();

// Every holder record in `dir`; a directory that fails the provenance check
// yields one entry saying so (its records are not used).
// A directory that does not exist has no holders unless it was named
// (`required`): then the answer is incomplete.
std::vector<HolderAddresses> read_holder_dir(const std::string& dir, bool required);

// The client addresses of `netns_path` ("" : the caller's own namespace),
// after checking it is a network namespace.
std::vector<ClientAddress> node_addresses(const std::string& netns_path);

}  // namespace netns::cli
