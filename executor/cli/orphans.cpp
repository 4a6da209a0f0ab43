#include "orphans.hpp"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <set>
#include <sstream>

#include "netns/error.hpp"
#include "netns/unique_fd.hpp"

namespace netns::cli {

namespace {

// Our children, across every thread's list (a child belongs to the thread
// that created it, or to the main thread once reparented to us).
std::set<pid_t> children() {
  std::set<pid_t> out;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return out;
  while (dirent* e = ::readdir(tasks)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/children");
    pid_t pid;
    while (in >> pid) out.insert(pid);
  }
  ::closedir(tasks);
  return out;
}

// Whether `pid` has exited already (a zombie waiting for us): a member of
// the command's group that died with it and was reparented to us late.
bool is_zombie(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return true;
  auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z' ||
         line[close + 2] == 'X';
}

std::string comm_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string comm;
  std::getline(in, comm);
  return comm;
}

// Field 4 of /proc/PID/stat; -1 when it cannot be read.
pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  auto close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 1));
  std::string state;
  pid_t ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

// SIGKILL, then reap within 2 s. Returns false when it is stuck.
bool kill_and_reap(pid_t pid) {
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd) return true;  // already reaped by someone
  // The pid came from our children list, but another thread may have reaped
  // it since and the pid been reused: the pidfd names our child only if that
  // process's parent is still us (checked after it was opened).
  if (parent_of(pid) != ::getpid()) return true;
  ::syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0);
  pollfd p{pidfd.get(), POLLIN, 0};
  int r;
  do {
    r = ::poll(&p, 1, 2000);
  } while (r < 0 && errno == EINTR);
  if (r <= 0) return false;
  siginfo_t info{};
  ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | __WALL);
  return true;
}

}  // namespace

void become_subreaper() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    throw Error::sys("prctl(PR_SET_CHILD_SUBREAPER)", "", errno);
}

std::set<pid_t> current_children() { return children(); }

std::vector<Orphan> kill_orphans(const std::set<pid_t>& spare) {
  std::vector<Orphan> killed;
  std::set<pid_t> stuck = spare;
  // Each round kills what is our child now; what those leave behind is
  // reparented to us and found in the next round.
  for (int round = 0; round < 64; ++round) {
    bool any = false;
    for (pid_t pid : children()) {
      if (stuck.count(pid) != 0) continue;
      any = true;
      bool already_dead = is_zombie(pid);
      Orphan o{pid, comm_of(pid), false};
      o.stuck = !kill_and_reap(pid);
      if (o.stuck) stuck.insert(pid);
      if (!already_dead) killed.push_back(std::move(o));
    }
    if (!any) break;
  }
  return killed;
}

}  // namespace netns::cli
