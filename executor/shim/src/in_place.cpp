#include "netns_exec/shim/in_place.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/shim/real_program.hpp"

#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000
#endif

namespace netns::exec::shim {

namespace {

// resolve() holds at most three descriptors at once, on every path: the
// namespace, the holder's pidfd and one more for what the kernel tells only
// through a file (/proc/PID/stat's start time, /proc/locks, the holder's
// namespace from PIDFD_GET_NET_NAMESPACE) or for a step of the walk (the
// directory stood on and the one entered, while the holder directory is
// held). None of the three can go without dropping a check: the namespace is
// what setns enters (never reopened by path), the pidfd is the one handle
// on the holder no pid reuse can fool. util-linux nsenter needs one, so the
// limit is raised for the checks where it can be, and put back before the
// exec, so the command starts with exactly the caller's limit: raising the
// hard limit needs CAP_SYS_RESOURCE; without it the soft limit goes as far
// as the hard one allows, and a real shortage is refused naming the limit.
constexpr int kDescriptorsNeeded = 3;

class DescriptorHeadroom {
 public:
  static constexpr rlim_t kHeadroom = 16;
  DescriptorHeadroom() {
    if (::getrlimit(RLIMIT_NOFILE, &saved_) != 0 || saved_.rlim_cur == RLIM_INFINITY) return;
    rlimit wider = saved_;
    wider.rlim_cur = saved_.rlim_cur + kHeadroom;
    if (wider.rlim_max != RLIM_INFINITY && wider.rlim_max < wider.rlim_cur)
      wider.rlim_max = wider.rlim_cur;
    if (::setrlimit(RLIMIT_NOFILE, &wider) == 0) {
      raised_ = true;
      return;
    }
    wider.rlim_cur = wider.rlim_max = saved_.rlim_max;
    raised_ = ::setrlimit(RLIMIT_NOFILE, &wider) == 0;
  }
  // Lowering back cannot fail for want of privilege, and descriptors above
  // the restored limit stay valid (ours are close-on-exec and go with the exec).
  void restore() {
    if (raised_) ::setrlimit(RLIMIT_NOFILE, &saved_);
    raised_ = false;
  }
  ~DescriptorHeadroom() { restore(); }
  DescriptorHeadroom(const DescriptorHeadroom&) = delete;
  DescriptorHeadroom& operator=(const DescriptorHeadroom&) = delete;

  // A check that failed for want of a descriptor (EMFILE), reworded: what
  // the limit is, how many are open, what the checks need and what to
  // raise. Called after resolve() has closed everything it opened, so the
  // count is the caller's own descriptors.
  [[nodiscard]] Error shortage(const Error& e) const {
    rlimit now{};
    if (::getrlimit(RLIMIT_NOFILE, &now) != 0) now = saved_;
    const rlim_t limit = now.rlim_cur;
    int open = 0;
    for (rlim_t fd = 0; fd < limit && fd < (1u << 20); ++fd)
      open += ::fcntl(static_cast<int>(fd), F_GETFD) >= 0;
    const std::string need = std::to_string(static_cast<rlim_t>(open) + kDescriptorsNeeded);
    std::string message =
        e.message() + ": the checks need " + std::to_string(kDescriptorsNeeded) +
        " free descriptors at once (util-linux nsenter needs 1); the caller's limit "
        "(RLIMIT_NOFILE) is soft " +
        std::to_string(saved_.rlim_cur) + ", hard " + std::to_string(saved_.rlim_max) + ", " +
        std::to_string(open) +
        " are open, and it could not be raised for the checks (past the hard limit "
        "only with CAP_SYS_RESOURCE); nothing was run";
    return Error(e.code(), std::move(message),
                 "raise the hard limit to at least " + need +
                     " (ulimit -Hn, or the container runtime's nofile rlimit), or close "
                     "descriptors before the call");
  }

 private:
  rlimit saved_{};
  bool raised_ = false;
};

bool out_of_descriptors(const Error& e) {
  return e.sys_errno() == EMFILE || e.message().find("(EMFILE)") != std::string::npos;
}

int report_exec_failure(std::string_view tool, const char* command, int err) {
  // util-linux's line, byte for byte: "nsenter: failed to execute X: %m".
  // Only the program's name, never its arguments (they may carry a key).
  std::fprintf(stderr, "%.*s: failed to execute %s: %s\n", static_cast<int>(tool.size()),
               tool.data(), command, std::strerror(err));
  return nsenter_exec_failure_status(err);
}

const char* getenv_or_empty(const char* name) {
  const char* v = ::getenv(name);
  return v ? v : "";
}

}  // namespace

int nsenter_exec_failure_status(int err) noexcept { return err == ENOENT ? 127 : 126; }

ResolveOptions in_place_options(std::string_view identity, std::string_view allow_unrecorded,
                                std::string_view wait_holder) {
  ResolveOptions options;
  options.remember = false;  // one resolve per process
  // ceph-csi's call line is fixed (`nsenter --net=PATH -- CMD`, `rbd ...`),
  // so its trust opt-ins (record-less, Rook-era holders; a namespace file no
  // holder record vouches for) come from the plugin container's environment.
  if (identity == "require" || identity.empty()) {
    options.identity = IdentityPolicy::require;
  } else if (identity == "if-present") {
    options.identity = IdentityPolicy::if_present;
  } else {
    // `off` is the CLI's --identity off, a deliberate per-command choice; from
    // an environment that every call inherits it is not offered.
    throw Error(Errc::invalid_argument,
                "environment variable NETNS_EXEC_IDENTITY=" + quote(identity) +
                    " is not allowed: its values are \"require\" and \"if-present\" (or unset)",
                "unset NETNS_EXEC_IDENTITY, or set it to if-present to accept record-less holders");
  }
  if (allow_unrecorded == "1") {
    options.allow_unrecorded_netns = true;
  } else if (!allow_unrecorded.empty() && allow_unrecorded != "0") {
    throw Error(
        Errc::invalid_argument,
        "environment variable NETNS_EXEC_ALLOW_UNRECORDED_NETNS=" + quote(allow_unrecorded) +
            " is not allowed: its values are \"1\" (use a namespace file no holder record "
            "vouches for) and \"0\" (or unset)",
        "unset NETNS_EXEC_ALLOW_UNRECORDED_NETNS, or set it to 1");
  }
  if (!wait_holder.empty())
    options.wait_holder = parse_duration(wait_holder, "NETNS_EXEC_WAIT_HOLDER");
  return options;
}

ResolveOptions in_place_options_from_environment() {
  return in_place_options(getenv_or_empty("NETNS_EXEC_IDENTITY"),
                          getenv_or_empty("NETNS_EXEC_ALLOW_UNRECORDED_NETNS"),
                          getenv_or_empty("NETNS_EXEC_WAIT_HOLDER"));
}

int exec_untouched(const char* program, char** argv, std::string_view tool) {
  set_exec_mark(tool, program);
  ::execv(program, argv);
  return report_exec_failure(tool, program, errno);
}

int enter_and_exec(const Source& source, const ResolveOptions& options, const char* program,
                   char** command, std::string_view tool) {
  // Like util-linux nsenter: validate, enter, exec in place. No child: the
  // pid, the signals the caller sends (Go's SIGKILL on timeout), the
  // descriptors, the ignored signals and the exit status are the command's
  // own. The process is single-threaded here, and every descriptor opened
  // so far is close-on-exec, so the command sees exactly what our caller
  // passed us — the namespace descriptor included, closed by execve.
  DescriptorHeadroom headroom;
  ResolvedNamespace ns;
  try {
    ns = resolve(source, options);
  } catch (const Error& e) {
    if (out_of_descriptors(e)) throw headroom.shortage(e);
    throw;
  }
  recheck_holder(ns);
  if (!ns.own_namespace && ::setns(ns.fd.get(), CLONE_NEWNET) != 0) {
    Error e = Error::sys("setns(CLONE_NEWNET)", ns.path, errno);
    e.context("nothing was run");
    throw e;
  }
  // After the last check, before the exec: the command's limit is the caller's.
  headroom.restore();
  if (program) {
    set_exec_mark(tool, program);
    ::execv(program, command);
  } else {
    ::execvp(command[0], command);
  }
  return report_exec_failure(tool, program ? program : command[0], errno);
}

}  // namespace netns::exec::shim
