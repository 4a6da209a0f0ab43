#include "pause_loop.hpp"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "listener.hpp"
#include "log.hpp"
#include "netns/error.hpp"

namespace netns::holder {

void reap_children() {
  // SIGCHLD is coalesced: one notification may stand for many exits.
  // Bounded by the number of children we have.
  for (;;) {
    pid_t pid = ::waitpid(-1, nullptr, WNOHANG);
    if (pid > 0) continue;
    if (pid < 0 && errno == EINTR) continue;
    return;  // 0: children left but none exited; -1/ECHILD: none at all
  }
}

int pause_until_stopped(int signal_fd, const SocketService* service) {
  pollfd fds[2] = {{signal_fd, POLLIN, 0}, {service ? service->listen_fd : -1, POLLIN, 0}};
  // Children that exited before the signalfd existed would otherwise wait
  // for the next SIGCHLD.
  reap_children();
  for (;;) {
    // No timeout: the holder wakes only for a signal or a client.
    int n = ::poll(fds, service ? 2 : 1, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::sys("poll", "signalfd", errno);
    }
    if (service && (fds[1].revents & POLLIN))
      serve_one(service->listen_fd, service->allow_uids, service->header, service->shown);
    if (!(fds[0].revents & POLLIN)) continue;
    // Drain the signalfd (non-blocking): several signals may be pending.
    for (;;) {
      signalfd_siginfo info{};
      ssize_t got = ::read(signal_fd, &info, sizeof info);
      if (got < 0 && errno == EINTR) continue;
      if (got != static_cast<ssize_t>(sizeof info)) break;
      int sig = static_cast<int>(info.ssi_signo);
      if (sig == SIGTERM || sig == SIGINT) return sig;
      if (sig == SIGCHLD) reap_children();
      // Everything else (SIGHUP, SIGUSR1, SIGPIPE, ...) is ignored on purpose.
    }
  }
}

}  // namespace netns::holder
