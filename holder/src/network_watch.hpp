#pragma once
// The holder's view of its own namespace's network, kept current without
// timers: a NETLINK_ROUTE socket joined to the link and address groups sits
// in the pause loop's poll set; any notification (or a lost one) makes the
// holder re-read the whole state with a dump on a second socket and, when
// the client addresses changed, republish the record atomically.
//
// Why a dump instead of applying the notifications: a notification can be
// lost (the socket overflows under a burst, ENOBUFS), and a dump taken after
// the notification queue was drained shows at least every change that was
// announced; re-reading is cheap (a handful of links) and leaves one code
// path that computes the state.
#include <vector>

#include "netns/net_snapshot.hpp"
#include "netns/unique_fd.hpp"

namespace netns::holder {

class NetworkWatch {
 public:
  // Opens both sockets in the caller's (the holder's) namespace. The
  // notification socket is joined before the first dump, so no change can
  // fall between the dump and the subscription.
  NetworkWatch();

  [[nodiscard]] int notify_fd() const { return notify_.get(); }
  // Drains the notifications, then re-reads. Never throws: a failed dump is
  // logged and the previous state kept (the next notification retries).
  // Returns true when anything (links, their state, addresses) changed.
  bool refresh();

  [[nodiscard]] const NetSnapshot& state() const { return state_; }

 private:
  UniqueFd notify_;
  UniqueFd dump_;
  NetSnapshot state_;
};

}  // namespace netns::holder
