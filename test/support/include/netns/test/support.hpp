#pragma once
// Helpers for tests: temporary directories, running commands, background
// processes and throw-away network namespaces. Everything cleans up by PID in
// its destructor.
#include <gtest/gtest.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netns/nsfd.hpp"

// Privileged tests: skip with the reason when not root.
#define NETNS_REQUIRE_ROOT()                                                           \
  do {                                                                                 \
    if (::geteuid() != 0)                                                              \
      GTEST_SKIP() << "needs root: creates network namespaces (run: sudo ./dev test)"; \
  } while (0)

namespace netns::test {

using namespace std::chrono_literals;

class TempDir {
 public:
  TempDir();   // mkdtemp under $TMPDIR or /tmp
  ~TempDir();  // rm -rf (no mount crossing)
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  // Makes the directory `name` in it (mode 0755) and returns its path; throws
  // (failing the test) when mkdir fails.
  std::string subdir(const std::string& name) const;

 private:
  std::string path_;
};

struct RunResult {
  int exit_code = -1;  // valid when !signaled && !timed_out
  int signal = 0;      // the signal that killed it, when signaled
  bool signaled = false;
  bool timed_out = false;
  std::string out;
  std::string err;
  [[nodiscard]] bool ok() const { return !signaled && !timed_out && exit_code == 0; }
  // For assertion messages.
  [[nodiscard]] std::string describe() const;
};

struct RunOptions {
  std::chrono::milliseconds timeout = 30s;
  std::string stdin_data;
  std::optional<std::map<std::string, std::string>> env;  // default: inherit
  std::function<void()> child_setup;  // runs in the child after fork, before exec
};

// Runs argv[0] (searched in PATH) and waits. Kills the process group on timeout.
RunResult run_command(const std::vector<std::string>& argv, const RunOptions& options = {});

// A background process; SIGKILLed and reaped on destruction unless waited.
class Process {
 public:
  // stdout and stderr go to files in a private temp dir (read with out()/err()).
  explicit Process(const std::vector<std::string>& argv, std::function<void()> child_setup = {});
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  void kill(int sig);
  // Waits up to `timeout`; returns the wait status, nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout = 10s);
  [[nodiscard]] bool running();
  [[nodiscard]] std::string out() const;
  [[nodiscard]] std::string err() const;

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string out_path_, err_path_, dir_;
};

// A child process that unshares a new network namespace (with lo up) and
// sleeps until destroyed: a throw-away namespace the test owns by PID.
class NetnsChild {
 public:
  NetnsChild();
  ~NetnsChild();
  NetnsChild(const NetnsChild&) = delete;
  NetnsChild& operator=(const NetnsChild&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::string ns_path() const { return "/proc/" + std::to_string(pid_) + "/ns/net"; }
  [[nodiscard]] NsId ns_id() const;
  // Runs a command inside the namespace (via nsenter --net) and returns its result.
  RunResult run(const std::vector<std::string>& argv, const RunOptions& options = {}) const;

 private:
  pid_t pid_ = -1;
  int release_fd_ = -1;
};

// Runs `ip ARGS` inside the network namespace at `ns_path` (via nsenter
// --net; links created there die with the namespace); fails the test when it
// does not exit 0.
void ip_in(const std::string& ns_path, const std::vector<std::string>& args);

// The contents of a file; empty when it cannot be read.
std::string read_text(const std::string& path);

// Writes an executable (0755) shell script: "#!/bin/sh", `body`, a newline.
// Throws (failing the test) when it cannot.
void write_script(const std::string& path, const std::string& body);

// Bounded wait for a condition. Tests only: product code waits on events.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
                std::chrono::milliseconds step = 5ms);

// Whether this build runs under ASan, TSan or UBSan (which slow down process
// start-up and everything else several times).
bool under_sanitizer();

// A wall-clock limit for an assertion: `limit` in a plain build, ten times
// it under a sanitizer, and never less than 5 s (STYLE: wall-clock assertions
// only with a wide margin; the machine may be shared and loaded). A test using
// it makes the behaviour it rules out take much longer than that.
std::chrono::milliseconds scaled(std::chrono::milliseconds limit);

// Whether `pid` is gone or a zombie (killed but not yet reaped by its parent).
bool process_gone(pid_t pid);

// Number of open descriptors of this process (entries of /proc/self/fd).
std::vector<int> open_fds();

// Whether process `pid` (this one by default) holds an inotify descriptor with
// at least one watch (an "inotify wd:" line in /proc/PID/fdinfo): the event
// that says a waiter is watching, so a test can publish after it, not after a
// sleep.
bool watching_with_inotify(pid_t pid = ::getpid());

// The children of `pid` (its main thread's /proc/PID/task/PID/children);
// empty when the process is gone.
std::vector<pid_t> children_of(pid_t pid);

// A unique, short name for namespaces, links and files: prefix + pid + counter.
std::string unique_name(const std::string& prefix);

// The identity of a namespace file, via stat.
NsId ns_id_of_path(const std::string& path);

}  // namespace netns::test
