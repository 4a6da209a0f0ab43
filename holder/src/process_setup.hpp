#pragma once
// The process-wide state a pause-like holder needs before it opens anything.
#include <signal.h>

namespace netns::holder {

// Blocks every signal (the pause loop reads them from a signalfd) and returns
// the full mask. Done first, so a SIGTERM that arrives while we publish is
// handled after publishing (with a clean withdrawal), never half-way.
sigset_t block_all_signals();

// Makes sure descriptors 0-2 are open (on /dev/null when they were closed),
// so no file we open later lands on them, and closes every other inherited
// descriptor: the holder lives for months and must not pin a pipe, a file or
// a mount of whoever started it.
void sanitize_descriptors();

}  // namespace netns::holder
