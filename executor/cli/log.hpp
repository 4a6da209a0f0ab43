#pragma once
// netns-exec logs to stderr (stdout belongs to the command or to --json), as
// text or one JSON object per line. Every message passes redact_message():
// exec::redact() plus the secrets this invocation's argv carries.
//
// JSON lines (--log-format json) carry, besides "time", "level", "logger" and
// "msg", structured fields: the ones set with set_log_field() (which
// subcommand, which source, cluster and path, the step netns-exec was at)
// and, for an error, "code", "errno", "errno_name" and "hint". The fields are
// listed in executor/cli/JSON.md. Text lines stay one sentence.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "netns/error.hpp"

namespace netns::cli {

// format: "text" or "json"; level: trace, debug, info, warn, error, off.
// Throws Error(invalid_argument) for an unknown format or level.
void setup_logging(std::string_view format, std::string_view level);

// setup_logging("text", "info") unless logging is set up already.
void ensure_logging();

// Once at start-up: remember the secrets in our own argv (exec::secrets_of_argv:
// --key values, -o secret=, key file contents).
void set_log_secrets(int argc, char** argv);

// The one redaction for our messages (logs, --json errors).
std::string redact_message(std::string_view message);

// Every later JSON line carries "key": value (a string value is redacted);
// null removes the field.
void set_log_field(const std::string& key, nlohmann::json value);

void log_info(std::string_view message, const nlohmann::json& fields = nullptr);
void log_warn(std::string_view message, const nlohmann::json& fields = nullptr);
// The one line main() logs for a failed executor step (exit 125).
void log_error(const Error& error);
void log_error(std::string_view message, const nlohmann::json& fields = nullptr);

}  // namespace netns::cli
