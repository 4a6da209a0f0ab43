#pragma once
// A strict reader and writer for flat JSON objects: string, non-negative
// integer, boolean and null members, no nesting. Enough for the holder record,
// small enough for the static holder (no JSON library there), strict enough to
// fuzz: duplicate keys, trailing bytes, control characters, leading zeros,
// fractions and numbers above 2^64-1 are errors.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace netns {

struct FlatJsonValue {
  enum class Kind { string, integer, boolean, null };
  Kind kind = Kind::null;
  std::string string;
  uint64_t integer = 0;
  bool boolean = false;
};

using FlatJsonObject = std::vector<std::pair<std::string, FlatJsonValue>>;

// Throws Error(invalid_argument) with the byte offset of the problem.
FlatJsonObject parse_flat_json(std::string_view text);

class FlatJsonWriter {
 public:
  FlatJsonWriter& add(std::string_view key, std::string_view value);
  FlatJsonWriter& add(std::string_view key, uint64_t value);
  FlatJsonWriter& add_bool(std::string_view key, bool value);
  FlatJsonWriter& add_null(std::string_view key);
  // The object, one member per line, with a trailing newline.
  [[nodiscard]] std::string finish() const;

 private:
  void key(std::string_view key);
  std::string body_;
};

// JSON string literal for `text` (quotes included); control bytes escaped.
std::string json_string(std::string_view text);

}  // namespace netns
