#pragma once
// Does a holder record vouch for the namespace we opened?
#include <string>

#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"

namespace netns::exec::detail {

// Throws Error(identity_mismatch or stale_holder) unless `record` describes a
// live holder, in our pid namespace and boot, for `cluster_id`, whose network
// namespace is `opened`. `shown` names the record file.
void check_record(const HolderRecord& record, const std::string& cluster_id, NsId opened,
                  const std::string& shown);

// The first part of check_record, which needs nothing opened: the record is
// for `cluster_id`, from this boot, and from our pid namespace. Checked before
// the link is followed, because from another pid namespace the /proc/<pid> the
// link names is another process, or none, for us: the link would look
// dangling ("holder gone") or lead to the wrong namespace.
void check_record_origin(const HolderRecord& record, const std::string& cluster_id,
                         const std::string& shown);

}  // namespace netns::exec::detail
