#include "log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "netns/flat_json.hpp"
#include <string>
#include <vector>

#include "netns_exec/redact.hpp"

namespace netns::cli {

namespace {

// %* in the JSON pattern: the message as a JSON string literal.
class JsonMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string text = json_string(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(text.data(), text.data() + text.size());
  }
  [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

}  // namespace

void setup_logging(std::string_view format, std::string_view level) {
  spdlog::drop("netns-exec");
  auto logger = spdlog::stderr_logger_mt("netns-exec");
  if (format == "json") {
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<JsonMessageFlag>('*').set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","logger":"netns-exec","msg":%*})");
    logger->set_formatter(std::move(formatter));
  } else if (format == "text") {
    logger->set_pattern("netns-exec: %l: %v");
  } else {
    spdlog::drop("netns-exec");
    throw Error(Errc::invalid_argument,
                "--log-format " + quote(format) + ": expected text or json");
  }
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") {
    spdlog::drop("netns-exec");
    throw Error(Errc::invalid_argument, "--log-level " + quote(level) +
                                            ": expected trace, debug, info, warn, error or off");
  }
  logger->set_level(lvl);
  spdlog::set_default_logger(logger);
}

void ensure_logging() {
  if (!spdlog::get("netns-exec")) setup_logging("text", "info");
}

namespace {
// The secrets this invocation's own argv carries (set once at start-up,
// before any thread): every log line hides them wherever they appear.
std::vector<std::string>& known_secrets() {
  static std::vector<std::string> secrets;
  return secrets;
}
}  // namespace

std::string redact_message(std::string_view message) {
  return exec::redact(message, known_secrets());
}

void set_log_secrets(int argc, char** argv) {
  known_secrets() = exec::secrets_of_argv(std::vector<std::string>(argv, argv + argc));
}

void log_info(std::string_view message) { spdlog::info("{}", redact_message(message)); }
void log_warn(std::string_view message) { spdlog::warn("{}", redact_message(message)); }
void log_error(std::string_view message) { spdlog::error("{}", redact_message(message)); }
void log_error(const Error& error) { log_error(error.describe()); }

}  // namespace netns::cli
