#pragma once
// While a pass-through command runs, the terminal's and the caller's signals
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are meant for it, not for us: block them
// here and let the spawn engine forward what arrives on the signalfd.
#include "netns/unique_fd.hpp"

namespace netns::cli {

// Blocks the forwarded signals in the calling (main) thread and returns a
// signalfd for spawn::Command::forward_signal_fd. Call before any thread starts.
UniqueFd block_forwarded_signals();

}  // namespace netns::cli
