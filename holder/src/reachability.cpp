#include "reachability.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <time.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "pause_loop.hpp"

namespace netns::holder {

namespace {

Error bad_target(std::string_view text, std::string_view why) {
  return Error(Errc::invalid_argument,
               "--require-reachable " + quote(text) + " is not ADDR:PORT (" + std::string(why) +
                   "); give a monitor as 198.18.0.1:3300 or [2001:db8::1]:6789");
}

long long now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// The errno of a connect that finished (SO_ERROR), 0 on success.
int connect_result(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

std::string failure(const ReachTarget& t, int err) {
  return t.shown + " " + (err == ECONNREFUSED ? "refused" : "unreachable") + " (" +
         errno_text(err) + ")";
}

}  // namespace

ReachTarget parse_reach_target(std::string_view text) {
  std::string_view host, port;
  const bool v6 = !text.empty() && text[0] == '[';
  if (v6) {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      throw bad_target(text, "an IPv6 address is written [ADDR]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) throw bad_target(text, "no port");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || port.size() > 5 || ec != std::errc() || end != port.data() + port.size() ||
      value == 0 || value > 65535)
    throw bad_target(text, "the port is 1-65535");
  ReachTarget t;
  t.shown = std::string(text);
  std::string h(host);
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&t.address);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<uint16_t>(value));
    if (::inet_pton(AF_INET6, h.c_str(), &a->sin6_addr) != 1)
      throw bad_target(text, "not a numeric IPv6 address");
    t.length = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&t.address);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<uint16_t>(value));
    if (::inet_pton(AF_INET, h.c_str(), &a->sin_addr) != 1)
      throw bad_target(text, "not a numeric IPv4 address; IPv6 goes in brackets");
    t.length = sizeof *a;
  }
  return t;
}

ReachOutcome probe_reachable(const std::vector<ReachTarget>& targets, int timeout_ms,
                             int signal_fd) {
  ReachOutcome out;
  const long long start = now_ms();
  std::vector<UniqueFd> socks;
  std::vector<pollfd> fds;
  std::vector<const ReachTarget*> pending;
  std::vector<std::string> failed;
  fds.push_back({signal_fd, POLLIN, 0});  // a negative fd is skipped by poll(2)
  for (const auto& t : targets) {
    UniqueFd s = make_socket(t.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&t.address), t.length) == 0) {
      out.reached = true;
      out.summary = t.shown + " connected at once";
      return out;
    }
    if (errno != EINPROGRESS) {
      failed.push_back(failure(t, errno));
      continue;
    }
    fds.push_back({s.get(), POLLOUT, 0});
    socks.push_back(std::move(s));
    pending.push_back(&t);
  }
  size_t open = pending.size();
  while (open > 0) {
    long long left = timeout_ms - (now_ms() - start);
    if (left <= 0) break;
    int n = ::poll(fds.data(), fds.size(), static_cast<int>(left));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::sys("poll", "monitor connections (--require-reachable)", errno);
    }
    if (fds[0].revents & POLLIN) {
      if ((out.signal = drain_signals(signal_fd)) != 0) return out;
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      int err = connect_result(fds[i].fd);
      fds[i].fd = -1;
      --open;
      if (err == 0) {
        out.reached = true;
        out.summary =
            pending[i - 1]->shown + " connected in " + std::to_string(now_ms() - start) + " ms";
        return out;
      }
      failed.push_back(failure(*pending[i - 1], err));
    }
  }
  for (size_t i = 1; i < fds.size(); ++i)
    if (fds[i].fd >= 0)
      failed.push_back(pending[i - 1]->shown + " timed out after " + std::to_string(timeout_ms) +
                       " ms");
  for (const auto& f : failed) out.summary += (out.summary.empty() ? "" : "; ") + f;
  return out;
}

}  // namespace netns::holder
