#pragma once
// Shared by the holder_*_test.cpp files: start netns-holder in a fresh
// network namespace (or as PID 1 of a fresh pid namespace) and wait for it to
// publish. Every process is owned by a netns::test::Process and killed by PID.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <optional>

#include <memory>
#include <string>
#include <vector>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"

namespace holder_test {

using namespace std::chrono_literals;

inline const std::string kHolder = NETNS_HOLDER_BIN;

enum class Mode {
  own_netns,  // unshare --net -- netns-holder: the holder is the started process
  pid1,       // unshare --pid --fork --net --kill-child: the holder is PID 1 of a new pid namespace
  join,       // nsenter --net=PATH -- netns-holder: an existing namespace (e.g. a NetnsChild's)
};

class Holder {
 public:
  Holder(const std::string& dir, const std::string& id, std::vector<std::string> extra = {},
         Mode mode = Mode::own_netns, const std::string& join_ns = {}) {
    std::vector<std::string> argv;
    if (mode == Mode::join) {
      argv = {"nsenter", "--net=" + join_ns, "--"};
    } else {
      argv = {"unshare"};
      if (mode == Mode::pid1) argv.insert(argv.end(), {"--pid", "--fork", "--kill-child"});
      argv.insert(argv.end(), {"--net", "--"});
    }
    argv.insert(argv.end(), {kHolder, "--cluster-id", id, "--dir", dir});
    argv.insert(argv.end(), extra.begin(), extra.end());
    proc_ = std::make_unique<netns::test::Process>(argv);
    pid_ = proc_->pid();
    if (mode == Mode::pid1) {
      // The holder is unshare's only child; its pid as seen from here.
      std::string children;
      netns::test::wait_until(
          [&] {
            try {
              children = netns::read_file("/proc/" + std::to_string(pid_) + "/task/" +
                                          std::to_string(pid_) + "/children");
            } catch (const netns::Error&) {}
            return !children.empty();
          },
          5s);
      pid_ = std::atoi(children.c_str());
    }
    if (mode != Mode::join) {
      // Until unshare has made the namespace, /proc/PID/ns/net is still this
      // test's (the host's): an `ip link add` into ns_path() then would land on
      // the host. A holder waiting for --require-interface logs nothing yet, so
      // the namespace changing is the event to wait for.
      const netns::NsId own = netns::test::ns_id_of_path("/proc/self/ns/net");
      netns::test::wait_until(
          [&] {
            try {
              return !(netns::test::ns_id_of_path(ns_path()) == own);
            } catch (const netns::Error&) {
              return !proc_->running();
            }
          },
          5s);
    }
  }

  // True once the holder logged that it holds the namespace (after publishing).
  bool wait_ready() {
    auto ready = [&] { return err().find("holding net:[") != std::string::npos; };
    netns::test::wait_until([&] { return ready() || !proc_->running(); }, 10s);
    return ready();
  }
  // The exit status of the started process (unshare passes the holder's on).
  std::optional<int> stop(int sig = SIGTERM) {
    ::kill(pid_, sig);
    return proc_->wait(10s);
  }
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::string err() const { return proc_->err(); }
  [[nodiscard]] std::string ns_path() const { return "/proc/" + std::to_string(pid_) + "/ns/net"; }
  [[nodiscard]] netns::NsId ns_id() const { return netns::test::ns_id_of_path(ns_path()); }
  netns::test::Process& process() { return *proc_; }

 private:
  std::unique_ptr<netns::test::Process> proc_;
  pid_t pid_ = -1;
};

inline bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

inline std::string read_link(const std::string& path) {
  char buf[512];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

// Lines of text (for "the error is one line" assertions).
inline size_t line_count(const std::string& text) {
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;
  return lines;
}

// RunOptions with a timeout (designated initializers would warn about the other members).
inline netns::test::RunOptions within(std::chrono::milliseconds timeout) {
  netns::test::RunOptions options;
  options.timeout = timeout;
  return options;
}

// Exit code of a wait status, or -1 when it was killed.
inline int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

}  // namespace holder_test
