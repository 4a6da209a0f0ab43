#pragma once
// The one redaction used on every path that shows a command or its output in
// an error, a log line or JSON (netns_ceph's too): values of key=...,
// secret=... (also inside comma-separated mount options such as
// name=admin,secret=AQB...), of names ending in one at a word boundary
// (userKey=, adminKey=, access_key=; also password, passphrase, token),
// keyring "key = V" lines, --key V, --key=V, --secret V, --secret=V, and a
// quoted key a tool echoes ("failed to decode key 'V'") become "<redacted>".
// Keyfile paths (--keyfile, secretfile=, keyring=) are shown; their contents
// are hidden where a caller knows them (secrets_of_argv). Only for messages
// and logs: a command's own output is returned untouched by every API.
#include <string>
#include <string_view>
#include <vector>

#include "netns/api.h"

namespace netns::exec {

inline constexpr std::string_view kRedacted = "<redacted>";
// Known secrets shorter than this are not searched for in free text (they
// would hide ordinary words).
inline constexpr size_t kMinKnownSecret = 4;

// Free text: a message, a line of output, a joined command line.
NETNS_EXEC_API std::string redact(std::string_view text);

// The same, after replacing every occurrence of each of `known_secrets`
// (from secrets_of_argv): catches a value wherever a message quotes it, in
// any order (a parse error listing "AQB... --key").
NETNS_EXEC_API std::string redact(std::string_view text,
                                  const std::vector<std::string>& known_secrets);

// The secret values an argv carries: the word after a bare secret flag
// (--key V, --secret V), NAME=V pieces with a secret NAME (--key=V,
// -osecret=V, secret=V inside -o lists), and the contents of key files it
// names (--keyfile F, --keyfile=F, secretfile=F, keyfile=F: regular files,
// the first 4 KiB, tokens of 12 bytes or more).
NETNS_EXEC_API std::vector<std::string> secrets_of_argv(const std::vector<std::string>& argv);

// An argv: like redact() on each element, and the element after a bare
// "--key" or "--secret" is replaced whole.
NETNS_EXEC_API std::vector<std::string> redact_argv(const std::vector<std::string>& argv);

// redact_argv, joined with spaces and each element quoted when needed, for
// one-line display.
NETNS_EXEC_API std::string redacted_command_line(const std::vector<std::string>& argv);

}  // namespace netns::exec
