#pragma once
// Durations as Kubernetes users write them (Go's time.ParseDuration):
// "300ms", "10s", "2m", "1h30m", "1.5s", "0". Units: ns, us (or µs), ms, s, m, h.
// Negative values, a missing unit and overflow are errors.
#include <chrono>
#include <string>
#include <string_view>

namespace netns {

// Throws Error(invalid_argument) naming `text` and the accepted forms. `what`
// names the option in the message ("--timeout").
std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view what = "duration");

// "1h30m0s"-style text for messages, precise to the millisecond.
std::string format_duration(std::chrono::nanoseconds d);

}  // namespace netns
