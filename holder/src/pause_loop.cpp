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

int drain_signals(int signal_fd) {
  // Several signals may be pending; the first stop signal ends the drain.
  for (;;) {
    signalfd_siginfo info{};
    ssize_t got = ::read(signal_fd, &info, sizeof info);
    if (got < 0 && errno == EINTR) continue;
    if (got != static_cast<ssize_t>(sizeof info)) return 0;
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGTERM || sig == SIGINT) return sig;
    if (sig == SIGCHLD) reap_children();
  }
}

int pause_until_stopped(int signal_fd, const SocketService* service,
                        const NetworkService& network) {
  // A negative fd is skipped by poll(2): no socket mode, no listener entry.
  pollfd fds[3] = {{signal_fd, POLLIN, 0},
                   {network.watch->notify_fd(), POLLIN, 0},
                   {service ? service->listen_fd : -1, POLLIN, 0}};
  // Children that exited before the signalfd existed would otherwise wait
  // for the next SIGCHLD.
  reap_children();
  for (;;) {
    // No timeout: the holder wakes only for a signal, a network change or a client.
    int n = ::poll(fds, 3, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::sys("poll", "signalfd", errno);
    }
    if (service && (fds[2].revents & POLLIN))
      serve_one(service->listen_fd, service->allow_uids, service->header, service->shown);
    if ((fds[1].revents & (POLLIN | POLLERR)) && network.watch->refresh())
      network.changed(network.context);
    if (!(fds[0].revents & POLLIN)) continue;
    if (int sig = drain_signals(signal_fd)) return sig;
  }
}

}  // namespace netns::holder
