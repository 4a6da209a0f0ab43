#pragma once
// The one join: items as text, separated by `sep`. The libraries do not link
// fmt (and the static holder links nothing but common/), so this stands in for
// fmt::join everywhere.
#include <string>
#include <string_view>

namespace netns {

struct AsText {
  template <typename T>
  const T& operator()(const T& item) const {
    return item;
  }
};

// `show(item)` is appended for each item: the item itself by default, or any
// function returning something std::string can append (a string, a
// string_view, a char).
template <typename Range, typename Show = AsText>
std::string join(const Range& items, std::string_view sep, Show show = {}) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += sep;
    first = false;
    out += show(item);
  }
  return out;
}

}  // namespace netns
