#pragma once
// A bounded TCP connect from inside a namespace: the socket is created on a
// thread that entered the namespace (so routing and source address are the
// namespace's), then connected non-blocking from the caller's thread and
// waited for with one deadline. Never hangs longer than `timeout`.
#include <chrono>
#include <string>
#include <string_view>

#include "netns_exec/inspect/ip_address.hpp"

namespace netns::inspect {

enum class ProbeOutcome { connected, refused, no_route, timed_out, error };

struct ProbeResult {
  ProbeOutcome outcome = ProbeOutcome::error;
  int err = 0;  // errno for refused / no_route / error
  std::chrono::nanoseconds elapsed{0};
  // "connected in 1.2ms", "refused (ECONNREFUSED)", "no route (ENETUNREACH)",
  // "timed out after 3s".
  [[nodiscard]] std::string describe() const;
};

ProbeResult tcp_probe(int nsfd, std::string_view shown, const Endpoint& target,
                      std::chrono::milliseconds timeout);

}  // namespace netns::inspect
