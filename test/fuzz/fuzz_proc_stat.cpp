// /proc/PID/stat: the command name (field 2) is chosen by the process, so a
// hostile holder can put spaces and parentheses in it. Property: whatever the
// name, the start time is read from field 22 counted after the last ')'.
#include <string>

#include "fuzz_target.hpp"
#include "netns/proc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view comm = netns::fuzz::as_text(data, size);
  // As given: arbitrary bytes must be rejected cleanly or parsed.
  netns::fuzz::rejecting_errors([&] { netns::parse_stat_start_time(comm); });
  // As the command name of a well-formed line: the answer must not depend on it.
  std::string line = "4242 (" + std::string(comm) +
                     ") S 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654321 1 2 3\n";
  NETNS_FUZZ_CHECK(netns::parse_stat_start_time(line) == 987654321u);
  return 0;
}
