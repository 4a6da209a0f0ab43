#include "netns/bench/anchors.hpp"

#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "netns/error.hpp"

extern char** environ;

namespace netns::bench {

namespace {

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr && *path != '\0' ? path : "/usr/sbin:/usr/bin:/sbin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  throw std::runtime_error(name + " not found in PATH (install util-linux / coreutils)");
}

int wait_for(pid_t pid, const std::string& what) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error::sys("waitpid", what, errno);
  }
  return status;
}

}  // namespace

const std::string& true_path() {
  static const std::string path = find_in_path("true");
  return path;
}

const std::string& nsenter_path() {
  static const std::string path = find_in_path("nsenter");
  return path;
}

void require_success(int status, const std::string& what) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                      : "signal " + std::to_string(WTERMSIG(status));
  throw std::runtime_error(what + " failed: " + how);
}

int spawn_and_wait(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int err = ::posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (err != 0) throw Error::sys("posix_spawn", argv.at(0), err);
  return wait_for(pid, argv.at(0));
}

void spawn_plain_true() { require_success(spawn_and_wait({true_path()}), "plain spawn of true"); }

void spawn_nsenter_true(const std::string& ns_path) {
  require_success(spawn_and_wait({nsenter_path(), "--net=" + ns_path, true_path()}),
                  "nsenter --net=" + ns_path + " true");
}

void spawn_fork_setns_true(int ns_fd) {
  // Built before fork: the child only makes async-signal-safe calls.
  const char* path = true_path().c_str();
  char* const argv[] = {const_cast<char*>(path), nullptr};
  pid_t pid = ::fork();
  if (pid < 0) throw Error::sys("fork", "fork-based spawn", errno);
  if (pid == 0) {
    if (::setns(ns_fd, CLONE_NEWNET) != 0) ::_exit(126);
    ::execve(path, argv, environ);
    ::_exit(127);
  }
  require_success(wait_for(pid, "fork-based spawn"), "fork + setns + execve of true");
}

}  // namespace netns::bench
