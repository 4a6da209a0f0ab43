#pragma once
// The --json documents netns-exec prints on stdout. Every string of ours that
// could carry a secret (command line, messages) is redacted; the command's
// captured stdout/stderr are its own bytes, untouched.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "netns/error.hpp"
#include "netns_exec/executor.hpp"

// The JSON form of the library's values, for nlohmann's to_json (a document
// built with {"netns", ns} calls them).
namespace netns::spawn {
void to_json(nlohmann::json& j, const Outcome& outcome);
// The command's own bytes: redaction is for our messages, never its data.
void to_json(nlohmann::json& j, const CapturedOutput& out);
}  // namespace netns::spawn

namespace netns::exec {
void to_json(nlohmann::json& j, const ResolvedNamespace& ns);
}  // namespace netns::exec

namespace netns::cli {

// The "format" of every --json document of run, map, unmap, mount, umount
// (executor/cli/JSON.md): fields are only added within a format; a field
// removed or re-typed means the next one.
inline constexpr int kJsonFormat = 1;

// {"format", "command", "netns", "outcome", "exit_code", "stdout", "stderr", ...}
nlohmann::json result_json(const exec::RunResult& r, const exec::ResolvedNamespace& ns,
                           const std::vector<std::string>& argv);
// {"format", "command", "exit_code": 125, "error": {"code", "message", "hint", "errno"}},
// plus "operation" when given (map, unmap, mount, umount).
nlohmann::json error_json(const Error& e, const std::vector<std::string>& argv,
                          const char* operation = nullptr);

// One line on stdout, flushed; invalid UTF-8 in output is replaced, not fatal. Returns 0, or the
// errno of a failed write (stdout closed, a full disk, a reader that went away).
int print_json(const nlohmann::json& doc);

// The exit code of `run --json` when the command ran but its JSON result
// could not be written (sysexits' EX_IOERR); never 125, which says nothing ran.
inline constexpr int kExitJsonLost = 74;

}  // namespace netns::cli
