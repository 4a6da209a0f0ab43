#pragma once
// JSON read the way Go's encoding/json (v1, Go's default) reads it into a
// struct, for files a Go program decodes too (ceph-csi's config.json): the
// same document must mean the same thing to both of us, so what Go accepts,
// rejects, folds and replaces is reproduced here, not what RFC 8259 or
// another library would do:
//
//   syntax   the whole text is checked before anything is decoded, as Go's
//            Unmarshal does: no byte-order mark, no comments, no trailing
//            commas, whitespace only " \t\n\r", at most 10000 nested
//            containers, nothing but whitespace after the value
//   strings  bytes >= 0x80 are accepted as they are; each byte that is not
//            part of well-formed UTF-8 becomes U+FFFD; a \u escape of a lone
//            surrogate becomes U+FFFD; control bytes must be escaped
//   keys     a key names a struct field by the field's exact name first,
//            then case-insensitively with Go's folding: ASCII letters, and
//            every other rune folded to the smallest rune of its Unicode
//            case orbit, so "\u212A" (Kelvin sign) is a K and "\u017F" (long
//            s) an S
//
// How values land in fields (later keys overwrite, null leaves a string or
// a struct alone, an object decoded into a struct merges into it) is the
// decoder's business (executor/lib/src/ceph_csi_config.cpp); this is the
// mechanism it stands on. No allocation beyond the strings returned, no
// recursion: a deeply nested document costs no stack.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace netns::go_json {

// Go's syntax check (encoding/json's checkValid). nullopt: valid; otherwise
// one sentence naming the byte offset, e.g. "invalid character '}' after
// object key at offset 17".
std::optional<std::string> syntax_error(std::string_view text);

// A JSON string literal's content (between the quotes, as it appears in a
// valid document) decoded as Go's unquote does it.
std::string unquote(std::string_view body);

// The key as Go's foldName would fold it, for matching against ASCII names:
// ASCII letters upper-cased, U+212A to 'K', U+017F to 'S' (the only runes
// outside ASCII whose case orbit contains an ASCII letter: checked against
// Go's unicode tables by test/go-config), every other rune left as it is
// (its fold is outside ASCII, so it can never equal an ASCII name's).
std::string fold_key(std::string_view key);

// The index in `names` of the field `key` decodes into, -1 for none: an
// exact match first, then the first name whose folded form is the key's.
// `names` must be ASCII and distinct after folding (a Go struct whose
// fields fold alike is resolved by rules not reproduced here).
int field_index(std::string_view key, std::span<const std::string_view> names);

// strconv.ParseInt(text, 10, 64) as Go's decoder applies it to a number
// going into an int field: "12", "-0" yes; "1.0", "1e2", overflow no.
std::optional<int64_t> parse_int64(std::string_view text);

// What the next value in a valid document is.
enum class Kind { object, array, string, number, boolean, null };
const char* kind_name(Kind kind) noexcept;  // "an object", "a string", ...

// Walks a document that syntax_error() accepted, value by value. Behaviour on
// any other text is undefined (it does not crash, but means nothing).
class Cursor {
 public:
  explicit Cursor(std::string_view valid) : text_(valid) {}

  [[nodiscard]] Kind peek();
  // Objects: begin, then next_key() until it returns false (the closing
  // brace consumed); after each key, read or skip exactly one value.
  void begin_object();
  bool next_key(std::string& key);
  // Arrays: begin, then next_element() until false; one value per element.
  void begin_array();
  bool next_element();
  // Scalars.
  std::string string();
  std::string_view number();  // the literal's text, as written
  bool boolean();
  void null();
  // Any value, however deep, without decoding it.
  void skip();
  [[nodiscard]] size_t offset() const noexcept { return pos_; }

 private:
  void skip_space();
  std::string_view string_body();
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace netns::go_json
