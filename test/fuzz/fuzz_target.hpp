#pragma once
// Shared by every fuzz target. A target parses untrusted bytes; netns::Error
// is the parser's documented way to say "no" and is swallowed. Anything else
// that escapes (std::out_of_range from a stray substr, a bad_alloc from a
// length field trusted too far) is a bug and reaches libFuzzer as an
// uncaught exception, i.e. a crash with its input saved.
//
// NETNS_FUZZ_CHECK states a property (round trip, invariant) of an accepted
// input; a violation aborts so the input is kept as a regression.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "netns/error.hpp"

#define NETNS_FUZZ_CHECK(cond)                                                           \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace netns::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `body`, treating netns::Error as a rejected input.
template <typename Body>
int rejecting_errors(Body&& body) {
  try {
    body();
  } catch (const netns::Error&) {}
  return 0;
}

}  // namespace netns::fuzz
