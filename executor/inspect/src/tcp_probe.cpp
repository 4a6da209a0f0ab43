#include "netns_exec/inspect/tcp_probe.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns_exec/inspect/netns_thread.hpp"

namespace netns::inspect {

namespace {
using Clock = std::chrono::steady_clock;

ProbeOutcome outcome_of(int err) {
  switch (err) {
    case 0:
      return ProbeOutcome::connected;
    case ECONNREFUSED:
      return ProbeOutcome::refused;
    case ENETUNREACH:
    case EHOSTUNREACH:
      return ProbeOutcome::no_route;
    case ETIMEDOUT:
      return ProbeOutcome::timed_out;
    default:
      return ProbeOutcome::error;
  }
}
}  // namespace

std::string ProbeResult::describe() const {
  switch (outcome) {
    case ProbeOutcome::connected:
      return "connected in " + format_duration(elapsed);
    case ProbeOutcome::refused:
      return "refused (" + errno_text(err) + ")";
    case ProbeOutcome::no_route:
      return "no route (" + errno_text(err) + ")";
    case ProbeOutcome::timed_out:
      return "timed out after " + format_duration(elapsed);
    case ProbeOutcome::error:
      break;
  }
  return "failed: " + errno_text(err);
}

ProbeResult tcp_probe(int nsfd, std::string_view shown, const Endpoint& target,
                      std::chrono::milliseconds timeout) {
  UniqueFd sock = socket_in_netns(nsfd, shown, target.addr.family, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (target.addr.family == AF_INET6) {
    auto* sa = reinterpret_cast<sockaddr_in6*>(&ss);
    sa->sin6_family = AF_INET6;
    sa->sin6_port = htons(target.port);
    std::memcpy(&sa->sin6_addr, target.addr.bytes.data(), 16);
    len = sizeof(sockaddr_in6);
  } else {
    auto* sa = reinterpret_cast<sockaddr_in*>(&ss);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(target.port);
    std::memcpy(&sa->sin_addr, target.addr.bytes.data(), 4);
    len = sizeof(sockaddr_in);
  }

  ProbeResult result;
  auto start = Clock::now();
  auto deadline = start + timeout;
  auto finish = [&](int err) {
    result.err = err;
    result.outcome = outcome_of(err);
    result.elapsed = Clock::now() - start;
    return result;
  };
  if (::connect(sock.get(), reinterpret_cast<sockaddr*>(&ss), len) == 0) return finish(0);
  if (errno != EINPROGRESS) return finish(errno);

  // One deadline for the whole wait, re-armed after EINTR with what is left.
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    pollfd pfd{sock.get(), POLLOUT, 0};
    int n = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::sys("poll", "connect to " + target.str(), errno);
    }
    if (n == 0) break;
    int err = 0;
    socklen_t errlen = sizeof err;
    if (::getsockopt(sock.get(), SOL_SOCKET, SO_ERROR, &err, &errlen) != 0)
      throw Error::sys("getsockopt(SO_ERROR)", "connect to " + target.str(), errno);
    return finish(err);
  }
  result.outcome = ProbeOutcome::timed_out;
  result.err = ETIMEDOUT;
  result.elapsed = Clock::now() - start;
  return result;
}

}  // namespace netns::inspect
