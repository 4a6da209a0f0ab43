#include "netns/test/support.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/proc.hpp"

extern char** environ;

namespace netns::test {

namespace {

std::vector<char*> to_argv(std::vector<std::string>& storage) {
  std::vector<char*> out;
  for (auto& s : storage) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void reset_child_signals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s = 1; s < NSIG; ++s) signal(s, SIG_DFL);
}

}  // namespace

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/netns-test.XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw Error::sys("mkdtemp", tmpl, errno);
  path_ = tmpl;
}

TempDir::~TempDir() {
  ::nftw(
      path_.c_str(),
      [](const char* p, const struct stat*, int type, struct FTW*) {
        if (type == FTW_DP)
          ::rmdir(p);
        else
          ::unlink(p);
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

std::string TempDir::subdir(const std::string& name) const {
  std::string path = *this / name;
  if (::mkdir(path.c_str(), 0755) != 0) throw Error::sys("mkdir", path, errno);
  return path;
}

std::string RunResult::describe() const {
  std::string s;
  if (timed_out)
    s = "timed out";
  else if (signaled)
    s = "killed by signal " + std::to_string(signal);
  else
    s = "exit " + std::to_string(exit_code);
  return s + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
}

RunResult run_command(const std::vector<std::string>& argv_in, const RunOptions& options) {
  std::vector<std::string> argv_store = argv_in;
  std::vector<char*> argv = to_argv(argv_store);
  std::vector<std::string> env_store;
  std::vector<char*> envp;
  if (options.env) {
    for (auto& [k, v] : *options.env) env_store.push_back(k + "=" + v);
    envp = to_argv(env_store);
  }
  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe();
  pid_t pid = ::fork();
  if (pid < 0) throw Error::sys("fork", argv_in.at(0), errno);
  if (pid == 0) {
    ::setpgid(0, 0);
    reset_child_signals();
    ::dup2(in.read.get(), 0);
    ::dup2(out.write.get(), 1);
    ::dup2(err.write.get(), 2);
    if (options.child_setup) options.child_setup();
    if (options.env)
      ::execvpe(argv[0], argv.data(), envp.data());
    else
      ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  in.read.reset();
  out.write.reset();
  err.write.reset();
  // Feed stdin from a thread so a child that does not read cannot block us.
  std::thread feeder([fd = std::move(in.write), data = options.stdin_data]() mutable {
    ::signal(SIGPIPE, SIG_IGN);
    try {
      write_all(fd.get(), data, "stdin");
    } catch (const Error&) {}
  });
  RunResult r;
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pollfd fds[2] = {{out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_count = 2;
  while (open_count > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        fds[i].fd = -1;
        --open_count;
      } else {
        sinks[i]->append(buf, static_cast<size_t>(got));
      }
    }
  }
  int status = 0;
  if (r.timed_out) {
    ::waitpid(pid, &status, 0);
  } else {
    // Output closed; the process may still be running (it closed its stdio).
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  }
  feeder.join();
  if (!r.timed_out) {
    if (WIFSIGNALED(status)) {
      r.signaled = true;
      r.signal = WTERMSIG(status);
    } else {
      r.exit_code = WEXITSTATUS(status);
    }
  }
  return r;
}

Process::Process(const std::vector<std::string>& argv_in, std::function<void()> child_setup) {
  char tmpl[] = "/tmp/netns-proc.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) throw Error::sys("mkdtemp", tmpl, errno);
  dir_ = tmpl;
  out_path_ = dir_ + "/stdout";
  err_path_ = dir_ + "/stderr";
  UniqueFd out = open_fd(out_path_, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  UniqueFd err = open_fd(err_path_, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  UniqueFd devnull = open_fd("/dev/null", O_RDONLY);
  std::vector<std::string> argv_store = argv_in;
  std::vector<char*> argv = to_argv(argv_store);
  pid_ = ::fork();
  if (pid_ < 0) throw Error::sys("fork", argv_in.at(0), errno);
  if (pid_ == 0) {
    reset_child_signals();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(devnull.get(), 0);
    ::dup2(out.get(), 1);
    ::dup2(err.get(), 2);
    if (child_setup) child_setup();
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
}

Process::~Process() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  ::unlink(out_path_.c_str());
  ::unlink(err_path_.c_str());
  ::rmdir(dir_.c_str());
}

void Process::kill(int sig) {
  if (!reaped_) ::kill(pid_, sig);
}

std::optional<int> Process::wait(std::chrono::milliseconds timeout) {
  if (reaped_) throw std::logic_error("Process::wait: already reaped");
  std::optional<int> result;
  wait_until(
      [&] {
        int status = 0;
        pid_t got = ::waitpid(pid_, &status, WNOHANG);
        if (got == pid_) {
          reaped_ = true;
          result = status;
          return true;
        }
        return false;
      },
      timeout, 2ms);
  return result;
}

bool Process::running() {
  if (reaped_) return false;
  int status = 0;
  // Peek without reaping: WNOWAIT keeps the zombie for wait().
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
      info.si_pid == pid_)
    return false;
  (void)status;
  return true;
}

std::string Process::out() const { return read_text(out_path_); }
std::string Process::err() const { return read_text(err_path_); }

NetnsChild::NetnsChild() {
  Pipe ready = make_pipe();
  Pipe release = make_pipe();
  pid_ = ::fork();
  if (pid_ < 0) throw Error::sys("fork", "netns child", errno);
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    char status = 'E';
    if (::unshare(CLONE_NEWNET) == 0) {
      int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      ifreq ifr{};
      std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
      if (s >= 0 && ::ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
        if (::ioctl(s, SIOCSIFFLAGS, &ifr) == 0) status = 'R';
      }
    }
    (void)!::write(ready.write.get(), &status, 1);
    char c;
    (void)!::read(release.read.get(), &c, 1);  // returns when the parent closes it
    ::_exit(0);
  }
  ready.write.reset();
  release.read.reset();
  char status = 0;
  ssize_t n = ::read(ready.read.get(), &status, 1);
  if (n != 1 || status != 'R') {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    throw std::runtime_error("NetnsChild: unshare(CLONE_NEWNET) or bringing lo up failed");
  }
  release_fd_ = release.write.release();
}

NetnsChild::~NetnsChild() {
  if (release_fd_ >= 0) ::close(release_fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

NsId NetnsChild::ns_id() const { return ns_id_of_path(ns_path()); }

RunResult NetnsChild::run(const std::vector<std::string>& argv, const RunOptions& options) const {
  std::vector<std::string> full = {"nsenter", "--net=" + ns_path(), "--"};
  full.insert(full.end(), argv.begin(), argv.end());
  return run_command(full, options);
}

void ip_in(const std::string& ns_path, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"nsenter", "--net=" + ns_path, "--", "ip"};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.timeout = 10s;
  auto r = run_command(argv, options);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
}

std::string read_text(const std::string& path) {
  try {
    return read_file(path, 64 << 20);
  } catch (const Error&) {
    return {};
  }
}

void write_script(const std::string& path, const std::string& body) {
  UniqueFd fd = open_fd(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  write_all(fd.get(), "#!/bin/sh\n" + body + "\n", path);
  // The mode given to open is masked by the umask; the script must be executable.
  if (::fchmod(fd.get(), 0755) != 0) throw Error::sys("fchmod", path, errno);
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
                std::chrono::milliseconds step) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(step);
  }
}

std::vector<int> open_fds() {
  std::vector<int> fds;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) throw Error::sys("opendir", "/proc/self/fd", errno);
  int self = ::dirfd(d);
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    int fd = std::atoi(e->d_name);
    if (fd != self) fds.push_back(fd);
  }
  ::closedir(d);
  return fds;
}

bool watching_with_inotify(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;  // gone
  bool found = false;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream info(dir + "/" + e->d_name);
    for (std::string line; !found && std::getline(info, line);)
      found = line.rfind("inotify wd:", 0) == 0;
    if (found) break;
  }
  ::closedir(d);
  return found;
}

std::vector<pid_t> children_of(pid_t pid) {
  std::string text;
  try {
    text = netns::read_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                            "/children");
  } catch (const netns::Error&) {}
  std::vector<pid_t> out;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    if (end > pos) out.push_back(std::atoi(text.substr(pos, end - pos).c_str()));
    pos = end + 1;
  }
  return out;
}

std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + std::to_string(::getpid() % 100000) + "x" + std::to_string(counter++);
}

NsId ns_id_of_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error::sys("stat", path, errno);
  return NsId{st.st_dev, st.st_ino};
}

}  // namespace netns::test

namespace netns::test {

bool under_sanitizer() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(undefined_behavior_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

std::chrono::milliseconds scaled(std::chrono::milliseconds limit) {
  using namespace std::chrono_literals;
  return std::max<std::chrono::milliseconds>(under_sanitizer() ? limit * 10 : limit, 5s);
}

bool process_gone(pid_t pid) {
  std::optional<ProcStat> stat = read_stat(pid);
  return !stat || stat->state == 'Z' || stat->state == 'X';
}

}  // namespace netns::test
