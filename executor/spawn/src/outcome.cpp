#include <signal.h>
#include <string.h>

#include <cerrno>
#include <string>

#include "netns/error.hpp"
#include "netns_exec/spawn/spawn.hpp"

namespace netns::spawn {

const char* stage_name(Stage stage) noexcept {
  switch (stage) {
    case Stage::prepare:
      return "prepare";
    case Stage::clone:
      return "clone";
    case Stage::signals:
      return "signals";
    case Stage::process_group:
      return "process_group";
    case Stage::setns:
      return "setns";
    case Stage::chdir:
      return "chdir";
    case Stage::stdio:
      return "stdio";
    case Stage::close_fds:
      return "close_fds";
    case Stage::exec:
      return "exec";
    case Stage::wait:
      return "wait";
  }
  return "unknown";
}

Outcome Outcome::exited(int code) noexcept { return {.kind = Kind::exited, .exit_code = code}; }

Outcome Outcome::signalled(int sig) noexcept { return {.kind = Kind::signalled, .signal = sig}; }

Outcome Outcome::timed_out(int sig) noexcept { return {.kind = Kind::timed_out, .signal = sig}; }

Outcome Outcome::spawn_failed(Stage stage, int err) noexcept {
  return {.kind = Kind::spawn_failed, .stage = stage, .error = err};
}

Outcome Outcome::cancelled(int sig) noexcept { return {.kind = Kind::cancelled, .signal = sig}; }

Outcome Outcome::status_lost() noexcept { return {.kind = Kind::status_lost}; }

namespace {

// The errors execvp(3) and shells treat as "no such command" rather than
// "found but cannot run it".
bool is_not_found_error(int err) {
  return err == ENOENT || err == ENOTDIR || err == ELOOP || err == ENAMETOOLONG;
}

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  std::string text = "signal " + std::to_string(sig);
  if (abbrev != nullptr) text += std::string(" (SIG") + abbrev + ")";
  return text;
}

}  // namespace

int Outcome::shell_exit_code() const noexcept {
  switch (kind) {
    case Kind::exited:
      return exit_code;
    case Kind::signalled:
      return 128 + signal;
    case Kind::timed_out:
      return 124;
    case Kind::cancelled:
      return 128 + signal;
    case Kind::status_lost:
      return 255;
    case Kind::spawn_failed:
      if (stage != Stage::exec) return 125;
      return is_not_found_error(error) ? 127 : 126;
  }
  return 125;
}

std::string Outcome::describe() const {
  switch (kind) {
    case Kind::exited:
      return "exited with code " + std::to_string(exit_code);
    case Kind::signalled:
      return "killed by " + signal_text(signal);
    case Kind::timed_out:
      return signal == 0 ? std::string("timed out")
                         : "timed out (ended with " + signal_text(signal) + ")";
    case Kind::cancelled:
      return signal == 0 ? std::string("cancelled")
                         : "cancelled (killed by " + signal_text(signal) + ")";
    case Kind::status_lost:
      return "ran, but its exit status was collected elsewhere in this process (SIGCHLD "
             "ignored, or waitpid(-1)) and this kernel cannot report it (PIDFD_GET_INFO needs "
             "Linux 6.15)";
    case Kind::spawn_failed: {
      std::string text = std::string(stage_name(stage)) + ": " + errno_text(error);
      if (stage == Stage::exec && is_not_found_error(error)) text += ": command not found";
      return text;
    }
  }
  return "unknown outcome";
}

}  // namespace netns::spawn
