#include "readiness.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "log.hpp"
#include "netns/error.hpp"
#include "pause_loop.hpp"

namespace netns::holder {

void validate_interface_name(std::string_view name) {
  bool ok = !name.empty() && name.size() <= 15 && name != "." && name != "..";
  for (char c : name) ok = ok && c != '/' && c != ':' && c != '%' && c > ' ' && c != 0x7f;
  if (!ok)
    throw Error(Errc::invalid_argument,
                "--require-interface " + quote(name) +
                    " is not an interface name (1-15 bytes, no '/', ':', '%' "
                    "or whitespace)");
}

std::string interfaces_not_ready(const NetSnapshot& state,
                                 const std::vector<std::string>& required) {
  std::string out;
  for (const auto& name : required) {
    const LinkState* link = nullptr;
    for (const auto& l : state.links)
      if (l.name == name) link = &l;
    std::string why;
    if (!link) {
      why = name + " does not exist";
    } else if (!link->up) {
      why = name + " is down";
    } else {
      bool has_address = false;
      for (const auto& a : state.client_addresses) has_address = has_address || a.interface == name;
      if (!has_address) why = name + " has no address";
    }
    if (!why.empty()) out += (out.empty() ? "" : "; ") + why;
  }
  return out;
}

int wait_until_ready(int signal_fd, NetworkWatch& watch, const std::vector<std::string>& required,
                     const std::vector<ReachTarget>& reachable) {
  std::string logged;
  unsigned failures = 0;
  for (;;) {
    std::string why = interfaces_not_ready(watch.state(), required);
    int wait_ms = -1;  // interfaces: only a network change can help, so no timeout
    if (why.empty() && !reachable.empty()) {
      ReachOutcome r = probe_reachable(reachable, kReachAttemptMs, signal_fd);
      if (r.signal != 0) return r.signal;
      if (r.reached) {
        log_line("monitor reachable: " + r.summary + " (--require-reachable)");
        return 0;
      }
      ++failures;
      why = "no monitor reachable: " + r.summary;
      wait_ms = failures >= 5 ? 10000 : 1000 << (failures - 1);
      if (failures % 10 == 0) logged.clear();  // say it again now and then
    }
    if (why.empty()) return 0;
    if (why != logged) {
      log_line("not publishing yet: " + why +
               (reachable.empty() || wait_ms < 0
                    ? std::string(" (waiting for the storage network; --require-interface)")
                    : " (attempt " + std::to_string(failures) + ", next in " +
                          std::to_string(wait_ms / 1000) + " s or at a network change)"));
      logged = why;
    }
    pollfd fds[2] = {{signal_fd, POLLIN, 0}, {watch.notify_fd(), POLLIN, 0}};
    int n = ::poll(fds, 2, wait_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::sys("poll", "signalfd and rtnetlink socket", errno);
    }
    if (fds[1].revents & (POLLIN | POLLERR)) watch.refresh();
    if (!(fds[0].revents & POLLIN)) continue;
    if (int sig = drain_signals(signal_fd)) return sig;
  }
}

}  // namespace netns::holder
