#include "log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstring>
#include <string>
#include <vector>

#include "netns/flat_json.hpp"
#include "netns_exec/redact.hpp"

namespace netns::cli {

namespace {

// The fields every JSON line carries, and those of the line being logged.
// The CLI logs from its main thread; thread_local keeps a stray thread's
// line from picking up another's fields all the same.
nlohmann::json& context_fields() {
  static nlohmann::json fields = nlohmann::json::object();
  return fields;
}
thread_local const nlohmann::json* t_line_fields = nullptr;

nlohmann::json redacted(const nlohmann::json& value) {
  if (value.is_string()) return redact_message(value.get<std::string>());
  return value;
}

void append_fields(std::string& out, const nlohmann::json& fields) {
  if (!fields.is_object()) return;
  for (const auto& [key, value] : fields.items()) {
    if (value.is_null()) continue;
    out += ',';
    out += json_string(key);
    out += ':';
    out += redacted(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

// %* in the JSON pattern: "msg", then the context's and the line's fields.
class JsonMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string text = "\"msg\":";
    text += json_string(std::string_view(msg.payload.data(), msg.payload.size()));
    append_fields(text, context_fields());
    if (t_line_fields != nullptr) append_fields(text, *t_line_fields);
    dest.append(text.data(), text.data() + text.size());
  }
  [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

// Logs one line with `fields` attached for its duration.
template <typename F>
void with_fields(const nlohmann::json& fields, F&& log) {
  const nlohmann::json* saved = t_line_fields;
  t_line_fields = &fields;
  log();
  t_line_fields = saved;
}

}  // namespace

void setup_logging(std::string_view format, std::string_view level) {
  spdlog::drop("netns-exec");
  auto logger = spdlog::stderr_logger_mt("netns-exec");
  if (format == "json") {
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<JsonMessageFlag>('*').set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","logger":"netns-exec",%*})");
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

void set_log_field(const std::string& key, nlohmann::json value) {
  if (value.is_null())
    context_fields().erase(key);
  else
    context_fields()[key] = std::move(value);
}

void log_info(std::string_view message, const nlohmann::json& fields) {
  with_fields(fields, [&] { spdlog::info("{}", redact_message(message)); });
}
void log_warn(std::string_view message, const nlohmann::json& fields) {
  with_fields(fields, [&] { spdlog::warn("{}", redact_message(message)); });
}
void log_error(std::string_view message, const nlohmann::json& fields) {
  with_fields(fields, [&] { spdlog::error("{}", redact_message(message)); });
}
void log_error(const Error& error) {
  nlohmann::json fields{{"code", errc_name(error.code())}};
  if (error.sys_errno() != 0) {
    fields["errno"] = error.sys_errno();
    if (const char* name = ::strerrorname_np(error.sys_errno())) fields["errno_name"] = name;
  }
  if (!error.hint().empty()) fields["hint"] = error.hint();
  log_error(error.describe(), fields);
}
}  // namespace netns::cli
