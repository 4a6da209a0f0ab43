#include "signals.hpp"

#include <signal.h>

#include <cerrno>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::cli {

UniqueFd block_forwarded_signals() {
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&mask, sig);
  // The signalfd first: if it fails, nothing is blocked and the defaults still
  // end us.
  UniqueFd fd = make_signalfd(mask);
  int rc = ::pthread_sigmask(SIG_BLOCK, &mask, nullptr);
  if (rc != 0) throw Error::sys("pthread_sigmask", "", rc);
  return fd;
}

}  // namespace netns::cli
