#pragma once
// What the holder publishes in its directory, and how it takes it back.
//
// Order, and why:
//   1. the socket (socket mode): bound and listening before anyone can learn
//      its name from the record;
//   2. the record <ID>.holder.json;
//   3. the link <ID>.net.ns, last: a reader must never see a link without
//      the identity it is checked against.
// Each step is atomic (temporary name, rename). Whatever was there before is
// replaced: we hold <ID>.lock, so it cannot describe a live holder. When a
// step fails, everything already published is removed again, so a failed
// start leaves nothing half-published.
#include <optional>
#include <string>
#include <vector>

#include "identity.hpp"
#include "listener.hpp"
#include "netns/cluster_id.hpp"
#include "netns/holder_record.hpp"

namespace netns::holder {

struct PublishPlan {
  std::string cluster_id;
  HolderFileNames names;
  std::string dir_shown;
  bool link = true;  // false as PID 1 of a child pid namespace (socket mode)
  std::optional<std::vector<uid_t>> socket_allow;  // socket mode when set
};

struct Published {
  HolderRecord record;
  std::optional<std::string> link_target;
  std::optional<Listener> listener;
};

// Logs one line per stale or damaged file it replaces. The record carries
// `addresses` (the namespace's client addresses when publishing).
Published publish(int dirfd, const PublishPlan& plan, const Identity& self,
                  const std::vector<ClientAddress>& addresses);

// The client addresses changed: rewrites the record (atomically, by rename)
// with the new ones, everything else as published, and keeps `ours` in step
// so withdraw() still recognises it. Only while the file still is ours (a
// record someone else put there is left alone, with a warning). Logs the
// new addresses; never throws.
void republish_addresses(int dirfd, const PublishPlan& plan, Published& ours,
                         const std::vector<ClientAddress>& addresses);

// Compare, then delete: removes each of the link, record and socket only
// while it still describes `ours`, so a holder that replaced us keeps its
// files. Returns the names removed. Never throws.
std::vector<std::string> withdraw(int dirfd, const PublishPlan& plan, const Published& ours);

}  // namespace netns::holder
