#pragma once
// The one redaction used on every path that shows a command or its output in
// an error, a log line or JSON (netns_ceph's too): values of key=...,
// secret=... (also inside comma-separated mount options such as
// name=admin,secret=AQB...), of names ending in one at a word boundary
// (userKey=, adminKey=, access_key=; also password, passphrase, token),
// keyring "key = V" lines, --key V, --key=V, --secret V, --secret=V, and a
// quoted key a tool echoes ("failed to decode key 'V'") become "<redacted>".
// Keyfile paths (--keyfile, secretfile=, keyring=) are shown; their contents
// are never read.
#include <string>
#include <string_view>
#include <vector>

namespace netns::exec {

inline constexpr std::string_view kRedacted = "<redacted>";

// Free text: a message, a line of output, a joined command line.
std::string redact(std::string_view text);

// An argv: like redact() on each element, and the element after a bare
// "--key" or "--secret" is replaced whole.
std::vector<std::string> redact_argv(const std::vector<std::string>& argv);

// redact_argv, joined with spaces and each element quoted when needed, for
// one-line display.
std::string redacted_command_line(const std::vector<std::string>& argv);

}  // namespace netns::exec
