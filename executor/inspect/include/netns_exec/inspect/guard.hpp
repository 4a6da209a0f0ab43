#pragma once
// The delete guard for the holder pod's preStop hook: deleting a holder while
// the kernel still has Ceph sessions in its namespace hangs every mapping on
// the node, so wait (bounded) until no established Ceph session is left.
//
// sock_diag has no event that covers the sessions that matter: its destroy
// notifications (SKNLGRP_INET_TCP_DESTROY) are not sent for kernel sockets
// that hold no netns reference (__sk_free broadcasts only for those that
// do; kernel clients' sockets traditionally do not), and a session leaves
// ESTABLISHED long before its socket is destroyed anyway (CLOSE-WAIT,
// FIN-WAIT). So the guard
// re-dumps on a timer: the established TCP sockets of both families, which
// is cheap, every `check_interval` (default 250ms, so it returns well within
// a second of the last session closing), and reports them to the caller only
// every `log_interval`.
#include <chrono>
#include <functional>
#include <string_view>
#include <vector>

#include "netns_exec/inspect/ceph_ports.hpp"
#include "netns_exec/inspect/sock_diag.hpp"

namespace netns::inspect {

// Established TCP sessions to Ceph ports, grouped by peer.
std::vector<PeerSessions> established_sessions(SockDiag& diag, const CephPorts& ports);

struct GuardOptions {
  CephPorts ports;
  std::chrono::nanoseconds max_wait = std::chrono::minutes(5);
  std::chrono::nanoseconds check_interval = std::chrono::milliseconds(250);
  std::chrono::nanoseconds log_interval = std::chrono::seconds(10);
};

enum class GuardOutcome { idle, timed_out };

struct GuardResult {
  GuardOutcome outcome = GuardOutcome::idle;
  size_t sessions = 0;  // established sessions at the last check
  std::chrono::nanoseconds waited{0};
};

// Called with the sessions still open and the time waited so far: once right
// away when the namespace is busy, then every log_interval, and once more
// when max_wait is reached.
using GuardLog =
    std::function<void(const std::vector<PeerSessions>& sessions, std::chrono::nanoseconds waited)>;

GuardResult wait_idle(int nsfd, std::string_view shown, const GuardOptions& options,
                      const GuardLog& log);

// Established Ceph sessions in the namespace right now.
size_t count_sessions(int nsfd, std::string_view shown, const CephPorts& ports);

}  // namespace netns::inspect
