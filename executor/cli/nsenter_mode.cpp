#include "nsenter_mode.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "command.hpp"
#include "environment.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/shim/real_program.hpp"

#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000
#endif

namespace netns::cli {

using exec::shim::basename_of;

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// --net=FILE or -nFILE: the file attached to the option.
std::optional<std::string> attached_net_path(std::string_view arg) {
  if (starts_with(arg, "--net=")) return std::string(arg.substr(6));
  if (starts_with(arg, "-n") && arg.size() > 2 && arg[2] != '-') return std::string(arg.substr(2));
  return std::nullopt;
}

bool is_detached_net_option(std::string_view arg) { return arg == "-n" || arg == "--net"; }

bool is_target_option(std::string_view arg) {
  return starts_with(arg, "-t") || arg == "--target" || starts_with(arg, "--target=");
}

// What an nsenter command line asks for, read as util-linux reads it up to
// the command ("+" in its getopt string: the first non-option is the command).
struct NsenterCall {
  std::optional<std::string> path;  // the network namespace file, if one was named
  bool attached = false;            // named as --net=FILE / -nFILE
  bool target = false;              // -t/--target somewhere
  std::string other;                // the first option that is not ours ("" if none)
  int command = 0;                  // index of the command in argv (argc if none)
};

NsenterCall parse_call(int argc, char** argv) {
  NsenterCall call;
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view arg(argv[i]);
    if (arg == "--") {
      ++i;
      break;
    }
    if (auto p = attached_net_path(arg)) {
      call.path = *p;
      call.attached = true;
      continue;
    }
    if (is_detached_net_option(arg) && i + 1 < argc && argv[i + 1][0] != '-') {
      call.path = argv[++i];
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      if (is_target_option(arg)) call.target = true;
      if (call.other.empty()) call.other = std::string(arg);
      continue;
    }
    break;
  }
  call.command = i;
  return call;
}

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

// Installed as nsenter: util-linux's, with our argv.
int hand_to_util_linux(char** argv) {
  std::string real;
  const char* configured = ::getenv("NETNS_EXEC_NSENTER");
  if (configured && *configured) {
    auto self = exec::shim::identity_of("/proc/self/exe");
    if (self && exec::shim::identity_of(configured) == self)
      throw Error(Errc::invalid_argument,
                  "NETNS_EXEC_NSENTER=" + quote(configured) + " is netns-exec itself",
                  "point it at util-linux nsenter (for example /usr/bin/nsenter.util-linux)");
    real = configured;
  } else {
    exec::shim::RealProgram found = exec::shim::find_real_program("nsenter", argv[0]);
    if (!found.found()) {
      std::string why;
      for (const auto& r : found.reasons) why += "; " + r;
      throw Error(Errc::not_found,
                  "this call is util-linux nsenter's (it is not a network-namespace entry by "
                  "file), and no util-linux nsenter was found" +
                      why + "; nothing was run",
                  "install util-linux next on PATH after netns-exec's nsenter link, or set "
                  "NETNS_EXEC_NSENTER to its path");
    }
    real = found.path;
  }
  return exec_untouched(real.c_str(), argv, basename_of(argv[0]));
}

}  // namespace

int nsenter_exec_failure_status(int err) noexcept {
  return err == ENOENT ? kExitNotFound : kExitNotExecutable;
}

exec::ResolveOptions in_place_resolve_options() {
  exec::ResolveOptions options;
  options.remember = false;  // one resolve per process
  // ceph-csi's call line is fixed (`nsenter --net=PATH -- CMD`, `rbd ...`),
  // so its trust opt-ins (record-less, Rook-era holders; a namespace file no
  // holder record vouches for) come from the plugin container's environment
  // (environment.hpp).
  options.identity = identity_from_environment(options.identity);
  options.allow_unrecorded_netns = allow_unrecorded_from_environment();
  const char* wait = ::getenv("NETNS_EXEC_WAIT_HOLDER");
  if (wait && *wait) options.wait_holder = parse_duration(wait, "NETNS_EXEC_WAIT_HOLDER");
  return options;
}

int exec_untouched(const char* program, char** argv, std::string_view tool) {
  ::execv(program, argv);
  return report_exec_failure(tool, program, errno);
}

int enter_and_exec(const exec::Source& source, const exec::ResolveOptions& options,
                   const char* program, char** command, std::string_view tool) {
  // Like util-linux nsenter: validate, enter, exec in place. No child: the
  // pid, the signals the caller sends (Go's SIGKILL on timeout), the
  // descriptors, the ignored signals and the exit status are the command's
  // own. The process is single-threaded here, and every descriptor opened
  // so far is close-on-exec, so the command sees exactly what our caller
  // passed us — the namespace descriptor included, closed by execve.
  DescriptorHeadroom headroom;
  exec::ResolvedNamespace ns;
  try {
    ns = exec::resolve(source, options);
  } catch (const Error& e) {
    if (out_of_descriptors(e)) throw headroom.shortage(e);
    throw;
  }
  exec::recheck_holder(ns);
  if (!ns.own_namespace && ::setns(ns.fd.get(), CLONE_NEWNET) != 0) {
    Error e = Error::sys("setns(CLONE_NEWNET)", ns.path, errno);
    e.context("nothing was run");
    throw e;
  }
  // After the last check, before the exec: the command's limit is the caller's.
  headroom.restore();
  if (program)
    ::execv(program, command);
  else
    ::execvp(command[0], command);
  return report_exec_failure(tool, program ? program : command[0], errno);
}

bool is_nsenter_invocation(int argc, char** argv) {
  if (argc >= 1 && basename_of(argv[0]) == "nsenter") return true;
  if (argc < 2) return false;
  if (attached_net_path(argv[1])) return true;
  return argc >= 3 && is_detached_net_option(argv[1]) && argv[2][0] != '-';
}

int nsenter_main(int argc, char** argv) {
  const bool as_nsenter = basename_of(argv[0]) == "nsenter";
  const NsenterCall call = parse_call(argc, argv);
  const bool have_path = call.path && !call.path->empty();

  // Not a network-namespace entry by file: util-linux's call, untouched.
  // -t with a detached `-n WORD` is util-linux's reading of -n (the
  // target's namespace, WORD the command).
  if (as_nsenter && (!have_path || (call.target && !call.attached)))
    return hand_to_util_linux(argv);

  if (!call.other.empty())
    throw Error(Errc::invalid_argument,
                "nsenter form: option " + quote(call.other) +
                    " cannot be combined with a network namespace file: netns-exec enters the "
                    "network namespace only, after checking the file; nothing was run",
                as_nsenter ? "enter the other namespaces with util-linux nsenter in a second step"
                           : "use util-linux nsenter for other namespaces");
  if (!have_path)
    throw Error(Errc::invalid_argument, "nsenter form: --net=PATH is required",
                "call it as: nsenter --net=<netNamespaceFilePath> -- CMD ARGS...");
  if (call.command >= argc)
    throw Error(Errc::invalid_argument,
                "nsenter form: no command given after --net=" + quote(*call.path));

  return enter_and_exec(exec::Source::netns_path(*call.path), in_place_resolve_options(), nullptr,
                        argv + call.command, basename_of(argv[0]));
}

}  // namespace netns::cli
