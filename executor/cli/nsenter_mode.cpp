#include "nsenter_mode.hpp"

#include <cstdlib>
#include <optional>
#include <string>

#include "netns/error.hpp"
#include "netns_exec/shim/in_place.hpp"
#include "netns_exec/shim/real_program.hpp"

namespace netns::cli {

using exec::shim::basename_of;
using exec::shim::enter_and_exec;
using exec::shim::exec_untouched;

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

// Installed as nsenter: util-linux's, with our argv.
int hand_to_util_linux(char** argv) {
  std::string real;
  const auto mark = exec::shim::exec_mark_from_environment();
  if (auto self = exec::shim::identity_of("/proc/self/exe");
      self && exec::shim::is_exec_loop("nsenter", mark, *self))
    throw Error(Errc::invalid_argument,
                "netns-exec runs as nsenter from " + quote(mark->path) +
                    ", which another netns-exec took for util-linux nsenter: that file is a copy "
                    "of netns-exec (each would exec the other for ever); nothing was run",
                "remove the copy, or make it a link to the one netns-exec; put util-linux "
                "nsenter on PATH after it, or set NETNS_EXEC_NSENTER to its path");
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

  return enter_and_exec(exec::Source::netns_path(*call.path),
                        exec::shim::in_place_options_from_environment(), nullptr,
                        argv + call.command, basename_of(argv[0]));
}

}  // namespace netns::cli
