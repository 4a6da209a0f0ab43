#pragma once
// `netns-holder check`: the exec probe of the holder pod. It runs inside the
// holder's container, so a healthy holder's files resolve to the very
// namespace the probe is in.
#include <string>

#include "options.hpp"

namespace netns::holder {

// Throws Error with the one-line reason when the holder is not healthy;
// returns the success line otherwise. Cold: the holding process never runs
// it (the probe is a process of its own), so the link puts it, and what only
// it calls, after the code start-up runs (holder/cold_last.ld); noinline, or
// GCC inlines it, called once, into main's start-up code.
[[gnu::cold, gnu::noinline]] std::string run_check(const Options& options);

}  // namespace netns::holder
