#include "netns/error.hpp"

#include <cstdio>
#include <cstring>

namespace netns {

const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::invalid_argument:
      return "invalid_argument";
    case Errc::not_found:
      return "not_found";
    case Errc::not_a_namespace:
      return "not_a_namespace";
    case Errc::wrong_namespace:
      return "wrong_namespace";
    case Errc::own_namespace:
      return "own_namespace";
    case Errc::identity_mismatch:
      return "identity_mismatch";
    case Errc::stale_holder:
      return "stale_holder";
    case Errc::busy:
      return "busy";
    case Errc::untrusted:
      return "untrusted";
    case Errc::protocol:
      return "protocol";
    case Errc::unsupported:
      return "unsupported";
    case Errc::timeout:
      return "timeout";
    case Errc::system:
      return "system";
  }
  return "unknown";
}

Error::Error(Errc code, std::string message, std::string hint)
    : code_(code), what_(std::move(message)), hint_(std::move(hint)) {}

Error Error::sys(std::string_view syscall, std::string_view object, int err, std::string hint,
                 Errc code) {
  std::string msg(syscall);
  if (!object.empty()) {
    msg += ' ';
    msg += object.front() == '"' ? std::string(object) : quote(object);
  }
  msg += ": ";
  msg += errno_text(err);
  Error e(code, std::move(msg), std::move(hint));
  e.errno_ = err;
  return e;
}

Error& Error::context(std::string_view ctx) {
  what_.insert(0, std::string(ctx) + ": ");
  return *this;
}

Error& Error::default_hint(std::string_view hint) {
  if (hint_.empty()) hint_ = hint;
  return *this;
}

std::string Error::describe() const {
  if (hint_.empty()) return what_;
  return what_ + "; check: " + hint_;
}

std::string errno_text(int err) {
  std::string text = std::strerror(err);
  if (const char* name = strerrorname_np(err)) {
    text += " (";
    text += name;
    text += ')';
  }
  return text;
}

std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace netns
