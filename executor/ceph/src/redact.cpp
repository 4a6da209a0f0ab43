// Secrets out of every message: values of key=/secret= (and *_key=, -secret=
// ...), of "--key VALUE" / "--secret VALUE", and of keyring "key = VALUE"
// lines. Names of files (secretfile=, --keyfile=, keyring=) stay.
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "netns_exec/ceph.hpp"

namespace netns::ceph {

namespace {

constexpr std::string_view kRedacted = "<redacted>";

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "key", "secret", "--key", "userKey", "aws-secret" name a secret value.
bool names_secret(std::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  std::string n = lower(name);
  // Suffixes catch ceph-csi's userKey/adminKey and the like.
  for (std::string_view suffix : {"key", "secret", "password", "passphrase", "token"})
    if (ends_with(n, suffix)) return true;
  return false;
}

bool ends_value(char c) {
  return c == ',' || c == ';' || c == '&' || c == '"' || c == '\'' ||
         std::isspace(static_cast<unsigned char>(c)) != 0;
}

// NAME[ ]=[ ]VALUE
std::string redact_assignments(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t copied = 0;
  for (size_t eq = text.find('='); eq != std::string_view::npos; eq = text.find('=', eq + 1)) {
    if (eq < copied) continue;
    size_t name_end = eq;
    while (name_end > copied && (text[name_end - 1] == ' ' || text[name_end - 1] == '\t')) --name_end;
    size_t name_start = name_end;
    while (name_start > copied && is_name_char(text[name_start - 1])) --name_start;
    if (name_start == name_end || !names_secret(text.substr(name_start, name_end - name_start)))
      continue;
    size_t value = eq + 1;
    while (value < text.size() && (text[value] == ' ' || text[value] == '\t')) ++value;
    size_t value_end = value;
    while (value_end < text.size() && !ends_value(text[value_end])) ++value_end;
    if (value_end == value) continue;
    out.append(text.substr(copied, value - copied));
    out.append(kRedacted);
    copied = value_end;
    eq = value_end > 0 ? value_end - 1 : 0;
  }
  out.append(text.substr(copied));
  return out;
}

// --key VALUE, --secret VALUE (the value as the next word)
std::string redact_flag_values(std::string_view text) {
  std::string out;
  size_t copied = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t start = text.find("--", pos);
    if (start == std::string_view::npos) break;
    size_t end = start + 2;
    while (end < text.size() && is_name_char(text[end])) ++end;
    pos = end;
    if (start > 0 && is_name_char(text[start - 1])) continue;
    if (end >= text.size() || (text[end] != ' ' && text[end] != '\t')) continue;
    if (!names_secret(text.substr(start, end - start))) continue;
    size_t value = end;
    while (value < text.size() && (text[value] == ' ' || text[value] == '\t')) ++value;
    size_t value_end = value;
    while (value_end < text.size() && !ends_value(text[value_end])) ++value_end;
    if (value_end == value || text[value] == '-') continue;
    out.append(text.substr(copied, value - copied));
    out.append(kRedacted);
    copied = pos = value_end;
  }
  out.append(text.substr(copied));
  return out;
}

// key 'VALUE' / secret "VALUE": how Ceph tools quote a key they could not
// decode ("auth: failed to decode key 'AQB...'").
std::string redact_quoted(std::string_view text) {
  std::string out;
  size_t copied = 0;
  for (size_t q = text.find_first_of("'\""); q != std::string_view::npos;
       q = text.find_first_of("'\"", q + 1)) {
    if (q < copied) continue;
    size_t word_end = q;
    while (word_end > copied && (text[word_end - 1] == ' ' || text[word_end - 1] == ':')) --word_end;
    if (word_end == q) continue;  // the quote must follow "key " or "secret: "
    size_t word_start = word_end;
    while (word_start > copied && is_name_char(text[word_start - 1])) --word_start;
    if (word_start == word_end || !names_secret(text.substr(word_start, word_end - word_start)))
      continue;
    size_t close = text.find(text[q], q + 1);
    if (close == std::string_view::npos) close = text.size();
    out.append(text.substr(copied, q + 1 - copied));
    out.append(kRedacted);
    copied = close;
    q = close;
    if (q >= text.size()) break;
  }
  out.append(text.substr(copied));
  return out;
}

}  // namespace

std::string redact(std::string_view text) {
  return redact_quoted(redact_flag_values(redact_assignments(text)));
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
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0 && arg.find('=') == std::string::npos &&
        names_secret(arg)) {
      next_is_secret = true;
      out.push_back(arg);
      continue;
    }
    out.push_back(redact(arg));
  }
  return out;
}

}  // namespace netns::ceph
