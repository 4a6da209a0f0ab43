#pragma once
// Socket mode: <ID>.net.sock, a SOCK_SEQPACKET unix socket that hands each
// allowed peer the namespace fd (netns/fd_passing.hpp) and closes.
#include <sys/types.h>

#include <string>
#include <vector>

#include "netns/fd_passing.hpp"
#include "netns/nsfd.hpp"
#include "netns/unique_fd.hpp"

namespace netns::holder {

struct Listener {
  UniqueFd fd;
  NsId file;  // (st_dev, st_ino) of the socket file: how withdraw() knows it is ours
};

// Binds under a temporary name, sets the mode, listens, then renames over
// `name`, so a client never finds a socket file nobody listens on. The mode
// is 0600 when every allowed uid is root or our own (they pass the
// permission check anyway), 0666 otherwise: SO_PEERCRED is the gate.
Listener publish_listener(int dirfd, const std::string& name, const std::string& dir_shown,
                          const std::vector<uid_t>& allow_uids);

// Accepts one pending connection (non-blocking; nothing pending is not an
// error), checks the peer's uid, sends the header and the namespace fd, and
// closes. Logs one line for a refused peer or a failed send; never throws.
void serve_one(int listen_fd, const std::vector<uid_t>& allow_uids, const FdHeader& header,
               const std::string& socket_shown);

}  // namespace netns::holder
