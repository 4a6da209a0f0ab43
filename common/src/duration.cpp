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
// Longer names first so "ms" is not read as "m" followed by junk.
constexpr Unit kUnits[] = {{"ns", 1},          {"us", 1000},        {"\xc2\xb5s", 1000},
                           {"ms", 1000000},    {"s", 1000000000},   {"m", 60000000000},
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
  // Accumulate in long double ns, then range-check: 2^63 ns is ~292 years.
  long double total = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    uint64_t whole = 0;
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (whole > UINT64_MAX / 10 - 9) throw bad("number too large");
      whole = whole * 10 + static_cast<uint64_t>(text[pos++] - '0');
    }
    bool have_digits = pos > start;
    long double frac = 0;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      long double scale = 0.1L;
      size_t fstart = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        frac += scale * (text[pos++] - '0');
        scale /= 10;
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
    total += (static_cast<long double>(whole) + frac) * static_cast<long double>(unit->ns);
    if (total > 9.2e18L) throw bad("too long");
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
  if (rest) std::snprintf(buf, sizeof buf, "%lld.%03llds", static_cast<long long>(s), static_cast<long long>(rest));
  else std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  out += buf;
  return out;
}

}  // namespace netns
