#pragma once
// Is the work of a map or a kernel mount already done on this node? Read
// under the volume lock, so the answer cannot change before we act on it.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns_exec/ceph/ceph.hpp"

namespace netns::ceph::detail {

// A sysfs attribute, trailing newline and blanks dropped; nullopt when unreadable.
std::optional<std::string> attribute(const std::filesystem::path& dir, const char* name);

// The /dev/rbdN of an existing krbd mapping of exactly this pool, RADOS
// namespace, image and snapshot, from SYS_BUS_RBD/devices/N/{pool,pool_ns,
// name,current_snap}, made from the same cluster (config_info's monitors
// share a host with the request's).
std::optional<std::string> mapped_device(const Settings& settings, const MapRequest& request);

// Whether TARGET is a mount point of type FS_TYPE in PROC_MOUNTINFO whose
// source names one of MONITORS' hosts (the same cluster).
bool mounted_as(const Settings& settings, const std::string& target, const std::string& fs_type,
                const std::vector<std::string>& monitors);

// Whether TARGET is a mount point in PROC_MOUNTINFO whose type starts with
// FS_TYPE_PREFIX ("nfs" for nfs and nfs4, "fuse" for ceph-fuse's).
bool mounted_at(const Settings& settings, const std::string& target,
                std::string_view fs_type_prefix);

}  // namespace netns::ceph::detail
