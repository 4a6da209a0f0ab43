#pragma once
// --require-interface: a holder publishes only a namespace that has its
// storage network. A pod created while the Multus thick plugin restarts comes
// up Running with only the default network; a holder in it would publish a
// namespace whose maps hang or leave by the wrong interface, and look healthy.
//
// The rule (once, here): each named interface exists, is administratively
// up, and has a client address (is_client_address: not link-local, not
// tentative). The holder applies it before publishing and after every
// network change; `netns-holder check`, the readiness probe, applies it to
// the namespace it runs in, which is the holder's.
#include <string>
#include <string_view>
#include <vector>

#include "netns/net_snapshot.hpp"
#include "network_watch.hpp"
#include "reachability.hpp"

namespace netns::holder {

// Throws Error(invalid_argument) unless `name` could be a Linux interface
// name (1-15 bytes, none of '/', ':', '%', whitespace).
void validate_interface_name(std::string_view name);

// "" when every interface in `required` is ready; else one sentence naming
// each one that is not and why ("net1 does not exist; net2 is down").
std::string interfaces_not_ready(const NetSnapshot& state,
                                 const std::vector<std::string>& required);

// One attempt's bound (ms) for --require-reachable, in the holder and in
// `check` alike: well inside the chart's probe timeout (5 s).
inline constexpr int kReachAttemptMs = 3000;

// Before publishing: waits, woken only by the network watch and signals,
// until interfaces_not_ready() is "" and, when `reachable` is not empty, one
// of those monitors accepts a TCP connection (returns 0), or SIGTERM/SIGINT
// arrives (returns it). Reaps children meanwhile. The interfaces come first:
// no connect is tried through a namespace that lacks its storage network.
// A failed connect is retried after 1, 2, 4, 8, then every 10 s, and at once
// after any network change (a route or address that arrives is what makes a
// monitor reachable). Logs what it waits for whenever the reason changes, and
// every tenth failed attempt.
int wait_until_ready(int signal_fd, NetworkWatch& watch, const std::vector<std::string>& required,
                     const std::vector<ReachTarget>& reachable);

}  // namespace netns::holder
