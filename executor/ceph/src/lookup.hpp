#pragma once
// Is the work of a map or a kernel mount already done on this node? Read
// under the volume lock, so the answer cannot change before we act on it.
#include <optional>
#include <string>

#include "netns_exec/ceph.hpp"

namespace netns::ceph::detail {

// The /dev/rbdN of an existing krbd mapping of exactly this pool, RADOS
// namespace, image and snapshot, from SYS_BUS_RBD/devices/N/{pool,pool_ns,
// name,current_snap}.
std::optional<std::string> mapped_device(const Settings& settings, const MapRequest& request);

// Whether TARGET is a mount point of type FS_TYPE in PROC_MOUNTINFO.
bool mounted_as(const Settings& settings, const std::string& target, const std::string& fs_type);

}  // namespace netns::ceph::detail
