#pragma once
// The signal state a caller may have when it starts a command, for the tests
// that pin what the command inherits of it (nothing: a fresh process's).
#include <signal.h>

#include <string>

namespace netns::test {

// What /proc/PID/status shows of a process with every signal SIG_DFL and an
// empty mask (the lines `grep -E '^Sig(Blk|Ign)'` prints).
inline constexpr const char* kDefaultSignalState =
    "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n";

// For its lifetime, this thread blocks SIGUSR2, and this process ignores
// SIGHUP and SIGRTMIN+1 (a standard and a real-time signal) and handles
// SIGUSR1; restore() or the destructor puts back what was there before.
class CallerSignals {
 public:
  CallerSignals();  // throws when sigaction fails
  ~CallerSignals();
  CallerSignals(const CallerSignals&) = delete;
  CallerSignals& operator=(const CallerSignals&) = delete;

  // Puts the dispositions and the mask back; returns the mask this thread
  // had until then (SIGUSR2 in it, unless the code under test changed it).
  sigset_t restore();

  // The "SigIgn:" line /proc/self/status shows while this is in place (when
  // nothing else is ignored): the control that the state was really set.
  [[nodiscard]] static std::string ignored_line();

 private:
  bool restored_ = false;
  sigset_t old_mask_{};
  struct sigaction old_hup_ {};
  struct sigaction old_rt_ {};
  struct sigaction old_usr1_ {};
};

}  // namespace netns::test
