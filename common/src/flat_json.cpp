#include "netns/flat_json.hpp"

#include <cstdio>

#include "json_escape.hpp"
#include "netns/error.hpp"

namespace netns {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  FlatJsonObject object() {
    FlatJsonObject out;
    skip_ws();
    expect('{');
    skip_ws();
    if (peek() == '}') {
      ++pos_;
    } else {
      for (;;) {
        skip_ws();
        size_t key_at = pos_;
        std::string key = string();
        for (const auto& member : out)
          if (member.first == key) fail_at(key_at, "duplicate key " + quote(key));
        skip_ws();
        expect(':');
        skip_ws();
        out.emplace_back(std::move(key), value());
        skip_ws();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect('}');
        break;
      }
    }
    skip_ws();
    if (pos_ != text_.size()) fail("unexpected bytes after the object");
    return out;
  }

 private:
  [[noreturn]] void fail_at(size_t at, const std::string& why) const {
    throw Error(Errc::invalid_argument,
                "malformed JSON at byte " + std::to_string(at) + ": " + why);
  }
  [[noreturn]] void fail(const std::string& why) const { fail_at(pos_, why); }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void expect(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void skip_ws() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  FlatJsonValue value() {
    FlatJsonValue v;
    char c = peek();
    if (c == '"') {
      v.kind = FlatJsonValue::Kind::string;
      v.string = string();
    } else if (c >= '0' && c <= '9') {
      v.kind = FlatJsonValue::Kind::integer;
      v.integer = integer();
    } else if (literal("true")) {
      v.kind = FlatJsonValue::Kind::boolean;
      v.boolean = true;
    } else if (literal("false")) {
      v.kind = FlatJsonValue::Kind::boolean;
    } else if (literal("null")) {
      v.kind = FlatJsonValue::Kind::null;
    } else {
      fail("expected a string, a non-negative integer, true, false or null");
    }
    return v;
  }

  uint64_t integer() {
    size_t start = pos_;
    uint64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      auto digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (value > (UINT64_MAX - digit) / 10) fail_at(start, "integer out of range");
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ - start > 1 && text_[start] == '0') fail_at(start, "leading zero");
    char c = peek();
    if (c == '.' || c == 'e' || c == 'E') fail("only whole numbers are allowed");
    return value;
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated string");
      auto c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"') return out;
      if (c < 0x20) fail_at(pos_ - 1, "control character in string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated escape");
      char e = text_[pos_++];
      if (e == 'u') {
        out += unicode_escape();
        continue;
      }
      std::optional<char> plain = detail::short_escape(e);
      if (!plain) fail_at(pos_ - 1, "unknown escape");
      out += *plain;
    }
  }

  // Only the Basic Latin range: everything this project writes is ASCII, and
  // accepting surrogates would only widen what a fuzzer can reach.
  char unicode_escape() {
    if (pos_ + 4 > text_.size()) fail("short \\u escape");
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text_[pos_++];
      value <<= 4;
      if (h >= '0' && h <= '9')
        value |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        value |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        value |= static_cast<unsigned>(h - 'A' + 10);
      else
        fail_at(pos_ - 1, "bad hex digit in \\u escape");
    }
    if (value >= 0x80) fail_at(pos_ - 6, "\\u escape outside ASCII");
    return static_cast<char>(value);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

FlatJsonObject parse_flat_json(std::string_view text) { return Parser(text).object(); }

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

void FlatJsonWriter::key(std::string_view k) {
  body_ += body_.empty() ? "{\n  " : ",\n  ";
  body_ += json_string(k);
  body_ += ": ";
}

FlatJsonWriter& FlatJsonWriter::add(std::string_view k, std::string_view value) {
  key(k);
  body_ += json_string(value);
  return *this;
}

FlatJsonWriter& FlatJsonWriter::add(std::string_view k, uint64_t value) {
  key(k);
  body_ += std::to_string(value);
  return *this;
}

FlatJsonWriter& FlatJsonWriter::add_bool(std::string_view k, bool value) {
  key(k);
  body_ += value ? "true" : "false";
  return *this;
}

FlatJsonWriter& FlatJsonWriter::add_null(std::string_view k) {
  key(k);
  body_ += "null";
  return *this;
}

std::string FlatJsonWriter::finish() const { return body_.empty() ? "{}\n" : body_ + "\n}\n"; }

}  // namespace netns
