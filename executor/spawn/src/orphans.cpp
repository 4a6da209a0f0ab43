#include "netns_exec/spawn/orphans.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/proc.hpp"

namespace netns::spawn {

namespace {

// SIGKILL, then reap within 2 s. Returns false when it is stuck.
bool kill_and_reap(pid_t pid) {
  UniqueFd pidfd;
  try {
    pidfd = make_pidfd(pid);
  } catch (const Error&) {
    return true;  // already reaped by someone (ESRCH): nothing to kill
  }
  // The pid came from our children list, but another thread may have reaped
  // it since and the pid been reused: the pidfd names our child only if that
  // process's parent is still us (checked after it was opened).
  std::optional<ProcStat> stat = read_stat(pid);
  if (!stat || stat->ppid != ::getpid()) return true;
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

std::set<pid_t> current_children() { return own_children(); }

std::vector<Orphan> kill_orphans(const std::set<pid_t>& spare) {
  std::vector<Orphan> killed;
  std::set<pid_t> stuck = spare;
  // Each round kills what is our child now; what those leave behind is
  // reparented to us and found in the next round.
  for (int round = 0; round < 64; ++round) {
    bool any = false;
    for (pid_t pid : own_children()) {
      if (stuck.count(pid) != 0) continue;
      any = true;
      // A zombie (or a pid already gone) has exited: a member of the
      // command's group that died with it and was reparented to us late.
      std::optional<ProcStat> stat = read_stat(pid);
      const bool already_dead = !stat || stat->state == 'Z' || stat->state == 'X';
      Orphan o{pid, stat ? stat->comm : std::string(), false};
      o.stuck = !kill_and_reap(pid);
      if (o.stuck) stuck.insert(pid);
      if (!already_dead) killed.push_back(std::move(o));
    }
    if (!any) break;
  }
  return killed;
}

}  // namespace netns::spawn
