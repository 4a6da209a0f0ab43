#pragma once
// Waiting for a holder to publish a file, without polling: an inotify watch on
// the nearest existing directory on the way to the file.
#include <chrono>
#include <functional>
#include <string>

#include "netns/path.hpp"

namespace netns::exec::detail {

// Calls `attempt` until it returns true or `wait` has passed; returns the last
// result. `attempt` returns false for "not there yet" and throws for anything
// else. Between attempts it sleeps on inotify events for the directory that
// holds `path` (or its nearest existing ancestor while that directory does not
// exist yet). With wait == 0 it makes exactly one attempt.
bool wait_for_path(const std::string& path, std::chrono::nanoseconds wait,
                   const std::function<bool()>& attempt);

using ::netns::split_path;

}  // namespace netns::exec::detail
