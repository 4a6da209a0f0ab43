#pragma once
// The holder's life after publishing: sleep in poll(2) on a signalfd, the
// rtnetlink notification socket (and the listening socket in socket mode)
// with no timeout, until SIGTERM or SIGINT.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "netns/fd_passing.hpp"
#include "network_watch.hpp"

namespace netns::holder {

struct SocketService {
  int listen_fd = -1;
  std::vector<uid_t> allow_uids;
  FdHeader header;
  std::string shown;
};

// What to do when the namespace's network changed (refresh() said so).
struct NetworkService {
  NetworkWatch* watch = nullptr;
  void (*changed)(void* context) = nullptr;
  void* context = nullptr;
};

// Reaps every exited child on SIGCHLD (we may be PID 1 and inherit orphans),
// ignores every other signal, serves the socket when given, follows the
// network. Returns the signal that asked us to stop.
int pause_until_stopped(int signal_fd, const SocketService* service, const NetworkService& network);

// Reads every pending signal from the (non-blocking) signalfd: SIGCHLD reaps,
// SIGTERM/SIGINT is returned, everything else (SIGHUP, SIGUSR1, SIGPIPE, ...)
// is ignored on purpose. 0 when no stop signal was pending.
int drain_signals(int signal_fd);

// Reaps every zombie child there is right now.
void reap_children();

}  // namespace netns::holder
