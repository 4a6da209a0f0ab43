// The one redaction (netns_ceph uses it too). Three passes over the text,
// each copying what it does not recognise:
//   NAME = VALUE        NAME is a secret name (below); spaces around '=' as in
//                       a keyring's "key = AQB..."
//   --NAME VALUE        a secret flag with its value as the next word
//   NAME 'VALUE'        how Ceph tools echo a key they could not decode
//                       ("failed to decode key 'AQB...'")
// A secret name is key, secret, password, passphrase or token (any case), or
// ends in one at a word boundary: userKey, adminKey, access_key, aws-secret.
// Not monkey=, not secretfile=, keyring=, --keyfile (files are named, never
// read here; secrets_of_argv reads them so their contents can be hidden).
#include "netns_exec/redact.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cctype>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/join.hpp"

namespace netns::exec {

namespace {

constexpr std::array<std::string_view, 5> kSecretWords = {"key", "secret", "password", "passphrase",
                                                          "token"};

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}
bool is_lower_or_digit(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0 ||
         std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_upper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }

// Where a secret value ends: an option separator, whitespace, a quote, or a
// backslash (an escaped quote inside JSON).
bool ends_value(char c) {
  return c == ',' || c == ';' || c == '&' || c == '"' || c == '\'' || c == '\\' ||
         std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

// "key", "--secret", "userKey", "access_key", "aws-secret"; not "monkey".
bool names_secret(std::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  for (std::string_view word : kSecretWords) {
    if (name.size() < word.size()) continue;
    size_t at = name.size() - word.size();
    if (!equal_ignoring_case(name.substr(at), word)) continue;
    if (at == 0) return true;
    char before = name[at - 1];
    if (before == '_' || before == '-' || before == '.') return true;
    if (is_upper(name[at]) && is_lower_or_digit(before)) return true;  // camelCase
  }
  return false;
}

// Also a short option with its value attached: "-osecret" in -osecret=V
// (mount's -o without the space) names "secret".
bool names_secret_option(std::string_view name) {
  if (names_secret(name)) return true;
  return name.size() > 2 && name[0] == '-' && name[1] != '-' &&
         std::isalpha(static_cast<unsigned char>(name[1])) != 0 && names_secret(name.substr(2));
}

// A word that is itself a secret flag ("--key", "--secret=").
bool starts_secret_flag(std::string_view word) {
  if (word.substr(0, 2) != "--") return false;
  size_t end = 2;
  while (end < word.size() && is_name_char(word[end])) ++end;
  return names_secret(word.substr(0, end));
}

size_t skip_blanks(std::string_view text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return at;
}
size_t value_end_from(std::string_view text, size_t at) {
  while (at < text.size() && !ends_value(text[at])) ++at;
  return at;
}

// NAME[ ]=[ ]VALUE
std::string redact_assignments(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t copied = 0;
  for (size_t eq = text.find('='); eq != std::string_view::npos; eq = text.find('=', eq + 1)) {
    if (eq < copied) continue;
    size_t name_end = eq;
    while (name_end > copied && (text[name_end - 1] == ' ' || text[name_end - 1] == '\t'))
      --name_end;
    size_t name_start = name_end;
    while (name_start > copied && is_name_char(text[name_start - 1])) --name_start;
    if (name_start == name_end ||
        !names_secret_option(text.substr(name_start, name_end - name_start)))
      continue;
    size_t value = skip_blanks(text, eq + 1);
    size_t end = value_end_from(text, value);
    if (end == value) continue;  // "key=": nothing to hide
    // "secret= --key V": an empty value, then a secret flag whose value the
    // flag pass hides; taking the flag for the value would expose V.
    // Likewise "secret= key = V": the word is the next assignment's name.
    if (value > eq + 1) {
      std::string_view word = text.substr(value, end - value);
      size_t next = skip_blanks(text, end);
      if (starts_secret_flag(word) ||
          (next < text.size() && text[next] == '=' && names_secret(word)))
        continue;
    }
    out.append(text.substr(copied, value - copied));
    out.append(kRedacted);
    copied = end;
    eq = end - 1;
  }
  out.append(text.substr(copied));
  return out;
}

// --NAME VALUE (the value is the next word, whatever it starts with)
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
    size_t value = skip_blanks(text, end);
    size_t value_end = value_end_from(text, value);
    if (value_end == value || text.substr(value, kRedacted.size()) == kRedacted) continue;
    // "--key --secret V": the next word is a secret flag with its own value,
    // which the next round hides.
    if (starts_secret_flag(text.substr(value, value_end - value))) continue;
    out.append(text.substr(copied, value - copied));
    out.append(kRedacted);
    copied = pos = value_end;
  }
  out.append(text.substr(copied));
  return out;
}

// key 'VALUE' / secret: "VALUE"
std::string redact_quoted(std::string_view text) {
  std::string out;
  size_t copied = 0;
  for (size_t q = text.find_first_of("'\""); q != std::string_view::npos;
       q = text.find_first_of("'\"", q + 1)) {
    if (q < copied) continue;
    size_t word_end = q;
    while (word_end > copied && (text[word_end - 1] == ' ' || text[word_end - 1] == ':'))
      --word_end;
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

bool is_secret_flag(std::string_view arg) {
  return arg.size() > 2 && arg.compare(0, 2, "--") == 0 &&
         arg.find('=') == std::string_view::npos && names_secret(arg);
}

// "--keyfile", "keyfile", "secretfile", "--secret-file": a file whose
// contents are a secret.
bool names_secret_file(std::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  if (name == "keyring") return true;  // rbd --keyring, ceph-fuse -k: "key = V" lines
  for (std::string_view suffix : {"file", "-file", "_file"}) {
    if (name.size() <= suffix.size()) continue;
    std::string_view head = name.substr(0, name.size() - suffix.size());
    if (name.substr(head.size()) == suffix && names_secret(head)) return true;
  }
  return false;
}

// The secret tokens of a key file: a bare key, or the values of a keyring's
// "key = V" lines; bounded (a key file is a few dozen bytes).
void add_file_secrets(const std::string& path, std::vector<std::string>& out) {
  constexpr size_t kMaxKeyFile = 4096;
  std::string content;
  try {
    UniqueFd fd = open_fd(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    content.resize(kMaxKeyFile);
    ssize_t n = ::read(fd.get(), content.data(), content.size());
    content.resize(n > 0 ? static_cast<size_t>(n) : 0);
  } catch (const Error&) {
    return;  // unreadable here: the command will say so itself
  }
  size_t at = 0;
  while (at < content.size()) {
    while (at < content.size() && std::isspace(static_cast<unsigned char>(content[at])) != 0) ++at;
    size_t end = at;
    while (end < content.size() && std::isspace(static_cast<unsigned char>(content[end])) == 0)
      ++end;
    // Keys are long (base64 of 16+ bytes); short words ("key", "=",
    // "[client.admin]" is long but harmless to hide) are not worth hiding.
    if (end - at >= 12) out.emplace_back(content.substr(at, end - at));
    at = end;
  }
}

// Replaces every occurrence of each known secret.
std::string redact_known(std::string_view text, const std::vector<std::string>& known) {
  std::string out(text);
  for (const auto& secret : known) {
    if (secret.size() < kMinKnownSecret) continue;
    for (size_t at = out.find(secret); at != std::string::npos;
         at = out.find(secret, at + kRedacted.size())) {
      out.replace(at, secret.size(), kRedacted);
    }
  }
  return out;
}

}  // namespace

std::string redact(std::string_view text) {
  return redact_quoted(redact_flag_values(redact_assignments(text)));
}

std::string redact(std::string_view text, const std::vector<std::string>& known_secrets) {
  if (known_secrets.empty()) return redact(text);
  return redact(redact_known(text, known_secrets));
}

std::vector<std::string> secrets_of_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    bool has_next = i + 1 < argv.size();
    if (is_secret_flag(arg) && has_next) {
      out.push_back(argv[i + 1]);
      continue;
    }
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0 && arg.find('=') == std::string::npos &&
        names_secret_file(arg) && has_next) {
      add_file_secrets(argv[i + 1], out);
      continue;
    }
    // NAME=VALUE pieces: --key=V, -osecret=V, name=a,secret=V,keyfile=/k
    size_t start = 0;
    while (start < arg.size()) {
      size_t end = arg.find(',', start);
      if (end == std::string::npos) end = arg.size();
      std::string_view piece(arg.data() + start, end - start);
      size_t eq = piece.find('=');
      if (eq != std::string_view::npos && eq + 1 < piece.size()) {
        std::string_view name = piece.substr(0, eq);
        std::string value(piece.substr(eq + 1));
        if (names_secret_option(name))
          out.push_back(value);
        else if (names_secret_file(name) || (name.size() > 2 && name[0] == '-' && name[1] != '-' &&
                                             names_secret_file(name.substr(2))))
          add_file_secrets(value, out);
      }
      start = end + 1;
    }
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
    // A bare "--key" / "--userKey": the next element is the secret, whole.
    if (is_secret_flag(arg)) {
      next_is_secret = true;
      out.push_back(arg);
      continue;
    }
    out.push_back(redact(arg));
  }
  return out;
}

std::string redacted_command_line(const std::vector<std::string>& argv) {
  return join(redact_argv(argv), " ", [](const std::string& arg) {
    bool plain = !arg.empty();
    for (char c : arg)
      if (!(std::isalnum(static_cast<unsigned char>(c)) ||
            std::string_view("-_./=:,@%+<>").find(c) != std::string_view::npos))
        plain = false;
    return plain ? arg : quote(arg);
  });
}

}  // namespace netns::exec
