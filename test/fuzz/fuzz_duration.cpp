// Go-style durations from flags (--timeout, --wait-holder). Properties: an
// accepted duration is non-negative; its nanosecond-exact decimal rendering
// ("<s>.<9 digits>s") parses back to exactly the same value (Go's
// ParseDuration is exact there, and "1.003s" must not become 1.002999999s);
// and format_duration's text parses back to the value truncated to the
// millisecond (format's precision).
#include <chrono>
#include <cstdio>

#include "fuzz_target.hpp"
#include "netns/duration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return netns::fuzz::rejecting_errors([&] {
    using std::chrono::milliseconds;
    std::chrono::nanoseconds d = netns::parse_duration(netns::fuzz::as_text(data, size), "--fuzz");
    NETNS_FUZZ_CHECK(d.count() >= 0);
    char exact[48];
    std::snprintf(exact, sizeof exact, "%lld.%09llds",
                  static_cast<long long>(d.count() / 1000000000),
                  static_cast<long long>(d.count() % 1000000000));
    NETNS_FUZZ_CHECK(netns::parse_duration(exact) == d);
    auto ms = std::chrono::duration_cast<milliseconds>(d);
    NETNS_FUZZ_CHECK(netns::parse_duration(netns::format_duration(d)) == ms);
  });
}
