#pragma once
// --require-reachable ADDR:PORT: before publishing, the holder proves that a
// Ceph monitor answers a TCP connect from its own namespace (so the storage
// network is not only up, but routed to the cluster). The monitors are a
// quorum, so one that answers is enough: one monitor down must not keep every
// holder on the node from publishing.
//
// The probe is a plain connect: every target at once, non-blocking, waited
// for together with the signalfd under one deadline, so SIGTERM during a
// probe is answered at once and no attempt outlives its bound. Nothing is
// sent; the connection is closed as soon as it is made.
#include <sys/socket.h>

#include <string>
#include <string_view>
#include <vector>

#include "network_watch.hpp"

namespace netns::holder {

struct ReachTarget {
  std::string shown;  // as given: "198.18.0.1:3300", "[2001:db8::1]:6789"
  sockaddr_storage address{};
  socklen_t length = 0;
};

// "IPv4:PORT" or "[IPv6]:PORT" (numeric only: no resolver in a static binary,
// and a monitor address in ceph-csi's config is numeric too). Throws
// Error(invalid_argument) naming the value.
ReachTarget parse_reach_target(std::string_view text);

struct ReachOutcome {
  bool reached = false;
  int signal = 0;       // SIGTERM/SIGINT arrived during the probe
  std::string summary;  // "198.18.0.1:3300 connected in 2 ms" or each failure
};

// One bounded attempt at every target at once; stops at the first that
// connects. `signal_fd` < 0: no signals watched (the check probe).
ReachOutcome probe_reachable(const std::vector<ReachTarget>& targets, int timeout_ms,
                             int signal_fd);

}  // namespace netns::holder
