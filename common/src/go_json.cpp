#include "netns/go_json.hpp"

#include <cstdio>
#include <vector>

#include "json_escape.hpp"

namespace netns::go_json {

namespace {

// encoding/json's scanner refuses a document nested deeper than this.
constexpr size_t kMaxDepth = 10000;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string describe_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  char buf[16];
  if (u >= 0x20 && u < 0x7f && c != '\'')
    std::snprintf(buf, sizeof buf, "'%c'", c);
  else
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
  return buf;
}

// The scanner, as one loop over a stack of open containers: a document of
// any depth costs no recursion.
class Syntax {
 public:
  explicit Syntax(std::string_view text) : s_(text) {}

  std::optional<std::string> check() {
    if (auto e = value()) return e;
    skip_space();
    if (pos_ != s_.size()) return invalid("after top-level value");
    return std::nullopt;
  }

 private:
  std::optional<std::string> value() {
    for (;;) {
      // One value starts here.
      skip_space();
      if (pos_ == s_.size()) return eof();
      const char c = s_[pos_];
      if (c == '{' || c == '[') {
        if (stack_.size() >= kMaxDepth) return at("exceeded max depth");
        stack_.push_back(c);
        ++pos_;
        skip_space();
        if (pos_ == s_.size()) return eof();
        if (s_[pos_] == (c == '{' ? '}' : ']')) {
          ++pos_;
          stack_.pop_back();
        } else if (c == '{') {
          if (auto e = key()) return e;
          continue;
        } else {
          continue;  // the array's first element
        }
      } else if (c == '"') {
        if (auto e = string()) return e;
      } else if (c == '-' || is_digit(c)) {
        if (auto e = number()) return e;
      } else if (c == 't' || c == 'f' || c == 'n') {
        if (auto e = literal(c == 't' ? "true" : c == 'f' ? "false" : "null")) return e;
      } else {
        return invalid("looking for beginning of value");
      }
      // A value ended: close containers until one wants another member.
      for (;;) {
        if (stack_.empty()) return std::nullopt;
        skip_space();
        if (pos_ == s_.size()) return eof();
        const char open = stack_.back();
        const char d = s_[pos_];
        if (d == ',') {
          ++pos_;
          if (open == '{') {
            if (auto e = key()) return e;
          }
          break;  // the next member's value, or the next element
        }
        if (d == (open == '{' ? '}' : ']')) {
          ++pos_;
          stack_.pop_back();
          continue;
        }
        return invalid(open == '{' ? "after object key:value pair" : "after array element");
      }
    }
  }

  // A member's key and colon; the value follows.
  std::optional<std::string> key() {
    skip_space();
    if (pos_ == s_.size()) return eof();
    if (s_[pos_] != '"') return invalid("looking for beginning of object key string");
    if (auto e = string()) return e;
    skip_space();
    if (pos_ == s_.size()) return eof();
    if (s_[pos_] != ':') return invalid("after object key");
    ++pos_;
    return std::nullopt;
  }

  std::optional<std::string> string() {
    ++pos_;  // the opening quote
    while (pos_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return std::nullopt;
      }
      if (c < 0x20) return invalid("in string literal");
      if (c != '\\') {
        ++pos_;
        continue;
      }
      if (++pos_ == s_.size()) return eof();
      const char e = s_[pos_];
      if (e == 'u') {
        for (int i = 0; i < 4; ++i) {
          if (++pos_ == s_.size()) return eof();
          if (hex_value(s_[pos_]) < 0) return invalid("in \\u hexadecimal character escape");
        }
        ++pos_;
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                 e == 'r' || e == 't') {
        ++pos_;
      } else {
        return invalid("in string escape code");
      }
    }
    return eof();
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; what follows is the
  // caller's to judge (so "01" fails as "after top-level value", as in Go).
  std::optional<std::string> number() {
    if (s_[pos_] == '-') {
      if (++pos_ == s_.size()) return eof();
      if (!is_digit(s_[pos_])) return invalid("in numeric literal");
    }
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      if (++pos_ == s_.size()) return eof();
      if (!is_digit(s_[pos_])) return invalid("after decimal point in numeric literal");
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      if (++pos_ == s_.size()) return eof();
      if (s_[pos_] == '+' || s_[pos_] == '-') {
        if (++pos_ == s_.size()) return eof();
      }
      if (!is_digit(s_[pos_])) return invalid("in exponent of numeric literal");
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    return std::nullopt;
  }

  std::optional<std::string> literal(std::string_view word) {
    for (char w : word) {
      if (pos_ == s_.size()) return eof();
      if (s_[pos_] != w)
        return invalid("in literal " + std::string(word) + " (expecting '" + w + "')");
      ++pos_;
    }
    return std::nullopt;
  }

  void skip_space() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }
  std::string at(const std::string& what) const {
    return what + " at offset " + std::to_string(pos_);
  }
  std::string invalid(const std::string& where) const {
    return at("invalid character " + describe_byte(s_[pos_]) + " " + where);
  }
  static std::string eof() { return "unexpected end of JSON input"; }

  std::string_view s_;
  size_t pos_ = 0;
  std::vector<char> stack_;
};

// Go's utf8.DecodeRune: the length of the well-formed sequence at s[0], or
// 0 when it is not one (Go then yields U+FFFD for that one byte).
size_t utf8_sequence(std::string_view s) {
  auto b = [&](size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  auto cont = [&](size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return s.size() > 1 && b(1) >= lo && b(1) <= hi && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return s.size() > 1 && b(1) >= lo && b(1) <= hi && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

void append_utf8(std::string& out, uint32_t r) {
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

constexpr uint32_t kReplacement = 0xFFFD;

// getu4: the \uXXXX escape at s[i], or -1 when there is none.
int32_t escape_at(std::string_view s, size_t i) {
  if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return -1;
  int32_t r = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    const int h = hex_value(s[k]);
    if (h < 0) return -1;
    r = r * 16 + h;
  }
  return r;
}

}  // namespace

std::optional<std::string> syntax_error(std::string_view text) { return Syntax(text).check(); }

std::string unquote(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\' && i + 1 < s.size()) {
      const char e = s[i + 1];
      if (e != 'u') {
        // Only a valid document gets here: any other letter was rejected first.
        out += detail::short_escape(e).value_or(e);
        i += 2;
        continue;
      }
      int32_t r = escape_at(s, i);
      if (r < 0) return out;  // not from a valid document
      i += 6;
      if (r >= 0xD800 && r < 0xE000) {
        // A high surrogate takes the next escape along when that one is
        // its low half; anything else (either half alone, two highs) is
        // U+FFFD, and the next escape is read on its own.
        const int32_t r2 = escape_at(s, i);
        if (r < 0xDC00 && r2 >= 0xDC00 && r2 < 0xE000) {
          append_utf8(out, 0x10000 + ((static_cast<uint32_t>(r) - 0xD800) << 10) +
                               (static_cast<uint32_t>(r2) - 0xDC00));
          i += 6;
          continue;
        }
        r = kReplacement;
      }
      append_utf8(out, static_cast<uint32_t>(r));
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (size_t n = utf8_sequence(s.substr(i)); n != 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      append_utf8(out, kReplacement);
      ++i;
    }
  }
  return out;
}

std::string fold_key(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  size_t i = 0;
  while (i < key.size()) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (c < 0x80) {
      out += static_cast<char>(c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c);
      ++i;
      continue;
    }
    // Go folds rune by rune as utf8.DecodeRune reads them; an invalid byte
    // is U+FFFD, which folds to itself.
    const size_t n = utf8_sequence(key.substr(i));
    const std::string_view rune = key.substr(i, n == 0 ? 1 : n);
    if (rune == "\xE2\x84\xAA")  // U+212A KELVIN SIGN
      out += 'K';
    else if (rune == "\xC5\xBF")  // U+017F LATIN SMALL LETTER LONG S
      out += 'S';
    else if (n == 0)
      append_utf8(out, kReplacement);
    else
      out.append(rune);
    i += rune.size();
  }
  return out;
}

int field_index(std::string_view key, std::span<const std::string_view> names) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == key) return static_cast<int>(i);
  const std::string folded = fold_key(key);
  for (size_t i = 0; i < names.size(); ++i)
    if (fold_key(names[i]) == folded) return static_cast<int>(i);
  return -1;
}

std::optional<int64_t> parse_int64(std::string_view text) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative || (!text.empty() && text[0] == '+')) i = 1;
  if (i == text.size()) return std::nullopt;
  // Accumulate as a negative number: its range holds INT64_MIN.
  int64_t value = 0;
  constexpr int64_t kMin = INT64_MIN;
  for (; i < text.size(); ++i) {
    if (!is_digit(text[i])) return std::nullopt;
    const int d = text[i] - '0';
    if (value < (kMin + d) / 10) return std::nullopt;
    value = value * 10 - d;
  }
  if (!negative) {
    if (value == kMin) return std::nullopt;
    value = -value;
  }
  return value;
}

const char* kind_name(Kind kind) noexcept {
  switch (kind) {
    case Kind::object:
      return "an object";
    case Kind::array:
      return "an array";
    case Kind::string:
      return "a string";
    case Kind::number:
      return "a number";
    case Kind::boolean:
      return "a boolean";
    case Kind::null:
      return "null";
  }
  return "?";
}

void Cursor::skip_space() {
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
}

Kind Cursor::peek() {
  skip_space();
  if (pos_ == text_.size()) return Kind::null;
  switch (text_[pos_]) {
    case '{':
      return Kind::object;
    case '[':
      return Kind::array;
    case '"':
      return Kind::string;
    case 't':
    case 'f':
      return Kind::boolean;
    case 'n':
      return Kind::null;
    default:
      return Kind::number;
  }
}

void Cursor::begin_object() {
  skip_space();
  ++pos_;
}

// In a valid document a member is preceded by '{' (the first) or ',' and
// followed by ',' or '}': the separator alone tells where we are.
bool Cursor::next_key(std::string& key) {
  skip_space();
  if (pos_ >= text_.size() || text_[pos_] == '}') {
    ++pos_;
    return false;
  }
  if (text_[pos_] == ',') ++pos_;
  skip_space();
  key = unquote(string_body());
  skip_space();
  ++pos_;  // ':'
  return true;
}

void Cursor::begin_array() { begin_object(); }

bool Cursor::next_element() {
  skip_space();
  if (pos_ >= text_.size() || text_[pos_] == ']') {
    ++pos_;
    return false;
  }
  if (text_[pos_] == ',') ++pos_;
  return true;
}

std::string_view Cursor::string_body() {
  const size_t start = ++pos_;  // past the opening quote
  while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
  const std::string_view body = text_.substr(start, std::min(pos_, text_.size()) - start);
  ++pos_;
  return body;
}

std::string Cursor::string() {
  skip_space();
  return unquote(string_body());
}

std::string_view Cursor::number() {
  skip_space();
  const size_t start = pos_;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (!(is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) break;
    ++pos_;
  }
  return text_.substr(start, pos_ - start);
}

bool Cursor::boolean() {
  skip_space();
  const bool value = pos_ < text_.size() && text_[pos_] == 't';
  pos_ += value ? 4 : 5;
  return value;
}

void Cursor::null() {
  skip_space();
  pos_ += 4;
}

void Cursor::skip() {
  // Count brackets outside strings: the document is valid, so they match.
  size_t depth = 0;
  do {
    skip_space();
    if (pos_ >= text_.size()) return;
    const char c = text_[pos_];
    if (c == '"') {
      string_body();
    } else if (c == '{' || c == '[') {
      ++depth;
      ++pos_;
    } else if (c == '}' || c == ']') {
      --depth;
      ++pos_;
    } else if (c == ',' || c == ':') {
      ++pos_;
    } else if (c == 't' || c == 'f' || c == 'n') {
      pos_ += c == 'f' ? 5 : 4;
    } else {
      number();
    }
  } while (depth > 0);
}

}  // namespace netns::go_json
