#pragma once
// `netns-holder check`: the exec probe of the holder pod. It runs inside the
// holder's container, so a healthy holder's files resolve to the very
// namespace the probe is in.
#include <string>

#include "options.hpp"

namespace netns::holder {

// Throws Error with the one-line reason when the holder is not healthy;
// returns the success line otherwise.
std::string run_check(const Options& options);

}  // namespace netns::holder
