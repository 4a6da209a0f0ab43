#include "netns/test/caller_signals.hpp"

#include <pthread.h>

#include <cerrno>
#include <cstdio>

#include "netns/error.hpp"

namespace netns::test {

namespace {

int realtime() { return SIGRTMIN + 1; }

}  // namespace

CallerSignals::CallerSignals() {
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &block, &old_mask_);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  struct sigaction handle {};
  handle.sa_handler = [](int) {};
  // These cannot fail for valid signals; if one did, the test fails with
  // whatever was set so far left in place (as an ASSERT would leave it).
  if (::sigaction(SIGHUP, &ign, &old_hup_) != 0 || ::sigaction(realtime(), &ign, &old_rt_) != 0 ||
      ::sigaction(SIGUSR1, &handle, &old_usr1_) != 0)
    throw Error::sys("sigaction", "SIGHUP, SIGRTMIN+1 or SIGUSR1", errno);
}

CallerSignals::~CallerSignals() {
  if (!restored_) restore();
}

sigset_t CallerSignals::restore() {
  restored_ = true;
  ::sigaction(SIGUSR1, &old_usr1_, nullptr);
  ::sigaction(realtime(), &old_rt_, nullptr);
  ::sigaction(SIGHUP, &old_hup_, nullptr);
  sigset_t had;
  pthread_sigmask(SIG_SETMASK, &old_mask_, &had);
  return had;
}

std::string CallerSignals::ignored_line() {
  char line[32];
  std::snprintf(line, sizeof line, "SigIgn:\t%016llx",
                (1ULL << (SIGHUP - 1)) | (1ULL << (realtime() - 1)));
  return line;
}

}  // namespace netns::test
