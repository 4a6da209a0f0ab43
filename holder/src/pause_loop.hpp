#pragma once
// The holder's life after publishing: sleep in poll(2) on a signalfd (and the
// listening socket in socket mode) with no timeout, until SIGTERM or SIGINT.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "netns/fd_passing.hpp"

namespace netns::holder {

struct SocketService {
  int listen_fd = -1;
  std::vector<uid_t> allow_uids;
  FdHeader header;
  std::string shown;
};

// Reaps every exited child on SIGCHLD (we may be PID 1 and inherit orphans),
// ignores every other signal, serves the socket when given. Returns the
// signal that asked us to stop.
int pause_until_stopped(int signal_fd, const SocketService* service);

// Reaps every zombie child there is right now.
void reap_children();

}  // namespace netns::holder
