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

int wait_until_ready(int signal_fd, NetworkWatch& watch, const std::vector<std::string>& required) {
  std::string logged;
  for (;;) {
    std::string why = interfaces_not_ready(watch.state(), required);
    if (why.empty()) return 0;
    if (why != logged) {
      log_line("not publishing yet: " + why +
               " (waiting for the storage network; --require-interface)");
      logged = why;
    }
    pollfd fds[2] = {{signal_fd, POLLIN, 0}, {watch.notify_fd(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw Error::sys("poll", "signalfd and rtnetlink socket", errno);
    }
    if (fds[1].revents & (POLLIN | POLLERR)) watch.refresh();
    if (!(fds[0].revents & POLLIN)) continue;
    if (int sig = drain_signals(signal_fd)) return sig;
  }
}

}  // namespace netns::holder
