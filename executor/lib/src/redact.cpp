#include "netns_exec/redact.hpp"

#include <array>
#include <cctype>

#include "netns/error.hpp"

namespace netns::exec {

namespace {

// "key" and "secret" followed by '=' (spaces allowed around it, as in a
// keyring's "key = AQB...") start a secret when they begin a word: not
// "monkey=", not "secretfile=".
constexpr std::array<std::string_view, 2> kAssignments = {"key", "secret"};
// Flags whose next word is a secret.
constexpr std::array<std::string_view, 2> kFlags = {"--key", "--secret"};

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
// Where a secret value ends: an option separator, whitespace or a quote.
bool value_end(char c) {
  return c == ',' || c == '"' || c == '\'' || c == '\\' ||
         std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool starts_with_at(std::string_view text, size_t at, std::string_view word) {
  return text.substr(at, word.size()) == word;
}

}  // namespace

std::string redact(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    bool at_word_start = i == 0 || !word_char(text[i - 1]);
    size_t value_at = std::string_view::npos;
    if (at_word_start) {
      for (auto a : kAssignments) {
        if (!starts_with_at(text, i, a)) continue;
        size_t at = i + a.size();
        while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
        if (at >= text.size() || text[at] != '=') continue;
        ++at;
        while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
        value_at = at;
      }
      // "--key V" / "--secret V" inside free text (a logged command line).
      for (auto f : kFlags) {
        size_t after = i + f.size();
        if (value_at == std::string_view::npos && starts_with_at(text, i, f) &&
            after < text.size() && (text[after] == ' ' || text[after] == '\t')) {
          while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
          value_at = after;
        }
      }
    }
    if (value_at == std::string_view::npos) {
      out += text[i++];
      continue;
    }
    out.append(text.substr(i, value_at - i));
    size_t end = value_at;
    while (end < text.size() && !value_end(text[end])) ++end;
    if (end > value_at) out += kRedacted;
    i = end;
  }
  return out;
}

std::vector<std::string> redact_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool next_is_secret = false;
  for (const auto& arg : argv) {
    if (next_is_secret) {
      out.emplace_back(kRedacted);
      next_is_secret = false;
      continue;
    }
    for (auto f : kFlags)
      if (arg == f) next_is_secret = true;
    out.push_back(redact(arg));
  }
  return out;
}

std::string redacted_command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : redact_argv(argv)) {
    if (!out.empty()) out += ' ';
    bool plain = !arg.empty();
    for (char c : arg)
      if (!(std::isalnum(static_cast<unsigned char>(c)) ||
            std::string_view("-_./=:,@%+<>").find(c) != std::string_view::npos))
        plain = false;
    out += plain ? arg : quote(arg);
  }
  return out;
}

}  // namespace netns::exec
