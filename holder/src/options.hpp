#pragma once
// The command line, parsed by a small loop over one table of options: CLI11
// or iostream would add hundreds of kilobytes to a static binary whose whole
// point is to be small, and getopt_long would expand abbreviations this
// parser must refuse. Only whole long option names are accepted, and -h as
// the one short form.
#include <sys/types.h>

#include <string>
#include <vector>

#include "reachability.hpp"

namespace netns::holder {

enum class Command { hold, check, help, version };

struct Options {
  Command command = Command::hold;
  std::string cluster_id;  // validated
  std::string dir;
  bool socket = false;
  std::vector<uid_t> allow_uids;  // socket mode; {0} when none was given
  bool allow_host_netns = false;  // publish even the host's network namespace
  // Interfaces that must exist, be up and have a client address before the
  // holder publishes (and for `check` to pass). Hold and check alike.
  std::vector<std::string> require_interfaces;
  // Monitors of which one must accept a TCP connection from the namespace
  // before the holder publishes (and for `check` to pass). Hold and check alike.
  std::vector<ReachTarget> require_reachable;
};

// Throws Error(invalid_argument) with a one-line message naming the value and
// what is allowed.
Options parse_options(int argc, char** argv);

// The --help text (usage, options, exit codes).
const char* usage_text();

}  // namespace netns::holder
