#pragma once
// `netns-exec inspect --holder-gone`: the namespace a dead holder may have
// left behind. Once the holder process is gone its link (/proc/<pid>/ns/net)
// dangles and its socket has no listener, so resolve() refuses; but the pod
// sandbox (its pause process) keeps the namespace, and every kernel session
// in it, until the pod is deleted. The record next to the holder's file says
// which namespace that was; any process still in it gives a descriptor
// (/proc/<pid>/ns/net). The descriptor then passes the same named checks as
// always (trust.hpp): a network namespace, owned by the initial user
// namespace, not ours, not the host's, and the one the record names (its
// cookie too, where the record has one). What no longer holds, and is said
// loudly by the caller: no live holder vouches for it.
#include <optional>
#include <string>

#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"
#include "netns/unique_fd.hpp"
#include "source_options.hpp"

namespace netns::cli {

struct GoneHolderNamespace {
  UniqueFd fd;                         // the validated namespace descriptor
  NsId id;                             // its identity
  std::string path;                    // the holder's file the source names
  std::string cluster_id;              // from the file name or --cluster-id
  std::string via;                     // where the descriptor came from
  std::optional<HolderRecord> record;  // the dead holder's record, if one was left
};

// Throws netns::Error naming the path and what to check when no namespace is
// found (the pod sandbox was deleted too) or a check fails.
GoneHolderNamespace find_gone_holder_namespace(const SourceOptions& source);

// The warning every output of a --holder-gone inspection carries.
std::string holder_gone_warning(const GoneHolderNamespace& gone);

}  // namespace netns::cli
