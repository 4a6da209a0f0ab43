#include "prepare.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "netns/error.hpp"
#include "netns/fd.hpp"

extern char** environ;

namespace netns::spawn::detail {

namespace {

constexpr const char* kDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

void require_no_nul(const std::string& text, const char* what) {
  if (text.find('\0') != std::string::npos)
    throw Error(Errc::invalid_argument, std::string(what) + " contains a NUL byte: " + quote(text));
}

// A descriptor the child will dup3 onto 0..2, or keep until exec, must not
// itself be 0..2: the dup3 of an earlier stream would overwrite it. They are
// only that low when the caller runs with 0..2 closed.
UniqueFd above_stdio(UniqueFd fd) {
  if (fd.get() >= 3) return fd;
  return dup_fd(fd.get());
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
    throw Error::sys("fcntl(O_NONBLOCK)", "pipe", errno);
}

int devnull_fd(Prepared& out) {
  if (!out.devnull) out.devnull = above_stdio(open_fd("/dev/null", O_RDWR));
  return out.devnull.get();
}

// Output pipe: the caller reads a non-blocking end; the child writes.
void output_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  Pipe pipe = make_pipe();
  read_end = std::move(pipe.read);
  write_end = above_stdio(std::move(pipe.write));
  set_nonblocking(read_end.get());
}

void require_open(int fd, const char* what) {
  if (fd < 0 || ::fcntl(fd, F_GETFD) < 0)
    throw Error(Errc::invalid_argument, std::string("spawn: ") + what + " " + std::to_string(fd) +
                                            " is not an open descriptor");
}

// A caller-owned descriptor for 0..2: used as is when it is >= 3, else
// through a close-on-exec copy we own (see above_stdio). The caller's own
// descriptor is never changed.
int caller_fd(int fd, const char* what, UniqueFd& copy) {
  require_open(fd, what);
  if (fd >= 3) return fd;
  copy = dup_fd(fd);  // F_DUPFD_CLOEXEC, >= 3
  return copy.get();
}

}  // namespace

std::vector<std::string> path_candidates(const std::string& file, const std::string& path) {
  if (file.find('/') != std::string::npos) return {file};
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t end = path.find(':', start);
    std::string dir =
        path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    out.push_back(dir + "/" + file);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

void prepare(const Command& command, Prepared& out, bool report_pipe) {
  if (command.argv.empty() || command.argv[0].empty())
    throw Error(Errc::invalid_argument, "spawn: empty command");
  for (const auto& arg : command.argv) require_no_nul(arg, "argument");

  out.argv.reserve(command.argv.size() + 1);
  for (const auto& arg : command.argv) out.argv.push_back(const_cast<char*>(arg.c_str()));
  out.argv.push_back(nullptr);

  // The PATH the command is searched in: the child's own if the explicit
  // environment sets one, else ours.
  std::string path;
  bool have_path = false;
  if (command.env) {
    out.envp.reserve(command.env->size() + 1);
    for (const auto& entry : *command.env) {
      require_no_nul(entry, "environment entry");
      if (entry.find('=') == std::string::npos)
        throw Error(Errc::invalid_argument,
                    "environment entry " + quote(entry) + " is not NAME=value");
      if (entry.compare(0, 5, "PATH=") == 0) {
        path = entry.substr(5);
        have_path = true;
      }
      out.envp.push_back(const_cast<char*>(entry.c_str()));
    }
    out.envp.push_back(nullptr);
    out.plan.envp = out.envp.data();
  } else {
    // Our environment as it is now; getenv/environ are only unsafe against a
    // concurrent setenv, as for execvp and posix_spawn.
    out.plan.envp = environ;
  }
  if (!have_path) {
    const char* ours = ::getenv("PATH");
    path = ours != nullptr ? ours : kDefaultPath;
  }
  out.candidate_storage = path_candidates(command.argv[0], path);
  out.candidates.reserve(out.candidate_storage.size());
  for (const auto& c : out.candidate_storage) out.candidates.push_back(c.c_str());

  out.plan.argv = out.argv.data();
  out.plan.candidates = out.candidates.data();
  out.plan.candidate_count = out.candidates.size();
  out.plan.netns_fd = command.netns_fd;
  if (command.cwd) {
    require_no_nul(*command.cwd, "working directory");
    out.plan.cwd = command.cwd->c_str();
  }
  out.plan.group = command.group;
  out.plan.parent = ::getpid();

  if (command.stdin_data) {
    Pipe pipe = make_pipe();
    out.stdin_read = above_stdio(std::move(pipe.read));
    out.stdin_write = std::move(pipe.write);
    set_nonblocking(out.stdin_write.get());
    out.plan.stdio[0] = out.stdin_read.get();
  } else if (command.stdin_mode == InputMode::null) {
    out.plan.stdio[0] = devnull_fd(out);
  } else if (command.stdin_mode == InputMode::fd) {
    out.plan.stdio[0] = caller_fd(command.stdin_fd, "stdin_fd", out.stdin_copy);
  }  // inherit: fd 0 stays as it is

  auto output = [&](OutputMode mode, UniqueFd& read_end, UniqueFd& write_end, int fd,
                    const char* what, UniqueFd& copy) -> int {
    switch (mode) {
      case OutputMode::capture:
        output_pipe(read_end, write_end);
        return write_end.get();
      case OutputMode::discard:
        return devnull_fd(out);
      case OutputMode::inherit:
        return -1;
      case OutputMode::fd:
        return caller_fd(fd, what, copy);
    }
    return -1;
  };
  out.plan.stdio[1] = output(command.stdout_mode, out.stdout_read, out.stdout_write,
                             command.stdout_fd, "stdout_fd", out.stdout_copy);
  out.plan.stdio[2] = output(command.stderr_mode, out.stderr_read, out.stderr_write,
                             command.stderr_fd, "stderr_fd", out.stderr_copy);
  if (command.cancel_fd >= 0) require_open(command.cancel_fd, "cancel_fd");

  out.plan.report = &out.report;
  if (report_pipe) {
    Pipe report = make_pipe();
    out.report_read = std::move(report.read);
    out.report_write = above_stdio(std::move(report.write));
    out.plan.error_fd = out.report_write.get();
  }
}

}  // namespace netns::spawn::detail
