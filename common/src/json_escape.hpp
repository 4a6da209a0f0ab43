#pragma once
// The one-letter escapes of a JSON string (RFC 8259 §7), shared by the two
// decoders: flat_json (strict, the holder's own files) and go_json (ceph-csi's
// config, read by Go's rules).
#include <optional>

namespace netns::detail {

// The character `\E` stands for, for every escape but `\u`; nullopt for a
// letter JSON does not define.
constexpr std::optional<char> short_escape(char e) noexcept {
  switch (e) {
    case '"':
    case '\\':
    case '/':
      return e;
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return std::nullopt;
  }
}

}  // namespace netns::detail
