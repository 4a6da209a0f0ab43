#include "netns/duration.hpp"

#include <cstdint>
#include <cstdio>

#include "netns/error.hpp"

namespace netns {

namespace {
struct Unit {
  std::string_view name;
  uint64_t ns;
};
__extension__ typedef unsigned __int128 U128;  // GCC and clang; -Wpedantic-clean
// Longer names first so "ms" is not read as "m" followed by junk.
constexpr Unit kUnits[] = {{"ns", 1},           {"us", 1000},      {"\xc2\xb5s", 1000},
                           {"ms", 1000000},     {"s", 1000000000}, {"m", 60000000000},
                           {"h", 3600000000000}};
}  // namespace

std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view what) {
  auto bad = [&](const std::string& why) {
    return Error(Errc::invalid_argument,
                 std::string(what) + " " + quote(text) + " is not a duration: " + why,
                 "write it like 300ms, 10s, 2m or 1h30m");
  };
  if (text.empty()) throw bad("it is empty");
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.front() == '-') throw bad("it is negative");
  if (text.front() == '+') text.remove_prefix(1);
  // Exact integer arithmetic, as Go's ParseDuration: "1.003s" is 1003000000ns,
  // not the 1002999999ns a binary fraction would give. 2^63 ns is ~292 years.
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  uint64_t total = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    uint64_t whole = 0;
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (whole > UINT64_MAX / 10 - 9) throw bad("number too large");
      whole = whole * 10 + static_cast<uint64_t>(text[pos++] - '0');
    }
    bool have_digits = pos > start;
    // The fraction as frac / scale; digits beyond 10^-18 cannot change a
    // nanosecond count of any unit up to hours and are ignored.
    uint64_t frac = 0;
    uint64_t scale = 1;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      size_t fstart = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (scale < 1000000000000000000ULL) {
          frac = frac * 10 + static_cast<uint64_t>(text[pos] - '0');
          scale *= 10;
        }
        ++pos;
      }
      have_digits = have_digits || pos > fstart;
    }
    if (!have_digits) throw bad("expected a number at byte " + std::to_string(pos));
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (text.substr(pos, u.name.size()) == u.name) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) throw bad("missing or unknown unit at byte " + std::to_string(pos));
    pos += unit->name.size();
    if (whole > kMax / unit->ns) throw bad("too long");
    // frac < scale <= 10^18 and unit <= 3.6e12: the product needs 128 bits.
    auto part = static_cast<uint64_t>(static_cast<U128>(frac) * unit->ns / scale);
    uint64_t term = whole * unit->ns + part;  // <= kMax + 3.6e12: no wrap
    if (term > kMax - total) throw bad("too long");
    total += term;
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(total));
}

std::string format_duration(std::chrono::nanoseconds d) {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(d).count();
  if (ms < 1000) return std::to_string(ms) + "ms";
  auto h = ms / 3600000;
  auto m = (ms / 60000) % 60;
  auto s = (ms / 1000) % 60;
  auto rest = ms % 1000;
  std::string out;
  if (h) out += std::to_string(h) + "h";
  if (h || m) out += std::to_string(m) + "m";
  char buf[32];
  if (rest)
    std::snprintf(buf, sizeof buf, "%lld.%03llds", static_cast<long long>(s),
                  static_cast<long long>(rest));
  else
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  out += buf;
  return out;
}

}  // namespace netns
