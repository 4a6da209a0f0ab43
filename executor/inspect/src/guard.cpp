#include "netns_exec/inspect/guard.hpp"

#include <netinet/tcp.h>
#include <sys/socket.h>

#include <thread>

#include "netns_exec/inspect/netns_thread.hpp"

namespace netns::inspect {

namespace {
using Clock = std::chrono::steady_clock;

SockDiag diag_in(int nsfd, std::string_view shown) {
  return SockDiag(netlink_sockets_in_netns(nsfd, shown).diag);
}

size_t total(const std::vector<PeerSessions>& groups) {
  size_t n = 0;
  for (const auto& g : groups) n += g.established;
  return n;
}
}  // namespace

std::vector<PeerSessions> established_sessions(SockDiag& diag, const CephPorts& ports) {
  std::vector<InetSocket> sockets;
  for (int family : {AF_INET, AF_INET6})
    diag.dump(family, Proto::tcp, state_bit(TCP_ESTABLISHED), sockets);
  return group_sessions(sockets, ports);
}

size_t count_sessions(int nsfd, std::string_view shown, const CephPorts& ports) {
  SockDiag diag = diag_in(nsfd, shown);
  return total(established_sessions(diag, ports));
}

GuardResult wait_idle(int nsfd, std::string_view shown, const GuardOptions& options,
                      const GuardLog& log) {
  // The diag socket is created once, inside the namespace, and reused for
  // every check: the namespace is not re-entered per check.
  SockDiag diag = diag_in(nsfd, shown);
  auto start = Clock::now();
  auto deadline = start + options.max_wait;
  auto next_log = start;
  for (;;) {
    auto groups = established_sessions(diag, options.ports);
    auto now = Clock::now();
    GuardResult result{GuardOutcome::idle, total(groups), now - start};
    if (result.sessions == 0) return result;
    if (now >= deadline) {
      result.outcome = GuardOutcome::timed_out;
      if (log) log(groups, result.waited);
      return result;
    }
    if (now >= next_log) {
      if (log) log(groups, result.waited);
      next_log = now + options.log_interval;
    }
    // A timer-driven re-check (not a busy loop): sleep to the next check or
    // the deadline, whichever comes first, so max_wait is kept to the tick.
    std::this_thread::sleep_until(std::min(now + options.check_interval, deadline));
  }
}

}  // namespace netns::inspect
