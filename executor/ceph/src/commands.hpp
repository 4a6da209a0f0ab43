#pragma once
// Validation of requests and the stdin a request needs (its key, if given by
// value). The argv builders themselves are public (netns_exec/ceph/ceph.hpp).
#include <optional>
#include <string>

#include "netns_exec/ceph/ceph.hpp"

namespace netns::ceph::detail {

inline constexpr const char* kStdinPath = "/dev/stdin";

// Throws netns::Error(invalid_argument) naming the field.
void validate(const MapRequest& request);
void validate(const UnmapRequest& request);
void validate(const CephfsMountRequest& request);
void validate(const NfsMountRequest& request);
void validate(const UmountRequest& request);
void validate(const NvmeConnectRequest& request);

// The key to write to the child's stdin, when the credentials carry one.
std::optional<std::string> stdin_secret(const Credentials& credentials);

}  // namespace netns::ceph::detail
