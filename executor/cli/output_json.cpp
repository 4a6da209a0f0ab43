#include "output_json.hpp"

#include <signal.h>

#include <cerrno>
#include <cstdio>

#include "command.hpp"
#include "log.hpp"
#include "netns_exec/redact.hpp"

namespace netns::spawn {

namespace {
const char* kind_name(Outcome::Kind kind) {
  switch (kind) {
    case Outcome::Kind::exited:
      return "exited";
    case Outcome::Kind::signalled:
      return "signalled";
    case Outcome::Kind::timed_out:
      return "timed_out";
    case Outcome::Kind::spawn_failed:
      return "spawn_failed";
    case Outcome::Kind::cancelled:
      return "cancelled";
    case Outcome::Kind::status_lost:
      return "status_lost";
  }
  return "unknown";
}
}  // namespace

void to_json(nlohmann::json& j, const Outcome& o) {
  j = {{"kind", kind_name(o.kind)}, {"description", o.describe()}};
  switch (o.kind) {
    case Outcome::Kind::exited:
      j["exit_code"] = o.exit_code;
      break;
    case Outcome::Kind::signalled:
    case Outcome::Kind::timed_out:
    case Outcome::Kind::cancelled:
      j["signal"] = o.signal;
      break;
    case Outcome::Kind::status_lost:
      break;
    case Outcome::Kind::spawn_failed:
      j["stage"] = stage_name(o.stage);
      j["errno"] = o.error;
      break;
  }
}

void to_json(nlohmann::json& j, const CapturedOutput& out) {
  j = {{"data", out.data}, {"total_bytes", out.total_bytes}, {"truncated", out.truncated}};
}

}  // namespace netns::spawn

namespace netns::exec {

void to_json(nlohmann::json& j, const ResolvedNamespace& ns) {
  j = {{"dev", ns.id.dev},
       {"ino", ns.id.ino},
       {"own_namespace", ns.own_namespace},
       {"path", ns.path},
       {"cluster_id", ns.cluster_id},
       {"description", ns.describe()},
       {"warning", ns.warning}};
  if (ns.record) {
    j["holder"] = {{"pid", ns.record->pid},
                   {"pid_start_time", ns.record->pid_start_time},
                   {"created_unix", ns.record->created_unix}};
  } else {
    j["holder"] = nullptr;
  }
}

}  // namespace netns::exec

namespace netns::cli {

nlohmann::json result_json(const exec::RunResult& r, const exec::ResolvedNamespace& ns,
                           const std::vector<std::string>& argv) {
  return {{"format", kJsonFormat},
          {"command", exec::redact_argv(argv)},
          {"netns", ns},
          {"outcome", r.result.outcome},
          {"exit_code", r.exit_code()},
          {"pid", r.result.pid},
          {"elapsed_ms",
           std::chrono::duration_cast<std::chrono::milliseconds>(r.result.elapsed).count()},
          {"stdout", r.result.out},
          {"stderr", r.result.err}};
}

nlohmann::json error_json(const Error& e, const std::vector<std::string>& argv,
                          const char* operation) {
  nlohmann::json doc{{"format", kJsonFormat},
                     {"command", exec::redact_argv(argv)},
                     {"exit_code", kExitExecutorFailed},
                     {"error",
                      {{"code", errc_name(e.code())},
                       {"message", redact_message(e.message())},
                       {"hint", redact_message(e.hint())},
                       {"errno", e.sys_errno()}}}};
  if (operation != nullptr) doc["operation"] = operation;
  return doc;
}

int print_json(const nlohmann::json& doc) {
  std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  // A closed pipe must give EPIPE here, not kill us silently: the command
  // has finished, no child inherits this disposition any more.
  ::signal(SIGPIPE, SIG_IGN);
  errno = 0;
  size_t written = std::fwrite(text.data(), 1, text.size(), stdout);
  int err = errno;
  if (std::fflush(stdout) != 0 && err == 0) err = errno;
  if (written == text.size() && !std::ferror(stdout)) return 0;
  return err != 0 ? err : EIO;
}

}  // namespace netns::cli
