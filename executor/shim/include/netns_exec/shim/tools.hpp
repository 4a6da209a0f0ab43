#pragma once
// The programs transparent mode stands in for: one row each, with every fact
// that varies by tool. Adding a kernel client is one row (and its readers):
// nothing else in netns-exec names a tool.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns_exec/shim/addresses.hpp"
#include "netns_exec/shim/monitors.hpp"
#include "netns_exec/source.hpp"

namespace netns::exec::shim {

// How a tool's call names the cluster whose holder must serve it.
enum class Naming {
  monitors,  // Ceph monitors, matched with ceph-csi's config.json
  targets,   // a server address, matched with NETNS_EXEC_TARGETS
  nothing,   // never a session: always the real program untouched
};

// A subcommand's own allow-list (nvme's: each has its own getopt table).
struct Command {
  std::string_view name;
  std::vector<Option> options;
};

struct Tool {
  // The basenames netns-exec answers to as this tool (argv[0]); the real
  // program is the one of the name invoked (mount.nfs4 is mount.nfs4).
  std::vector<std::string_view> programs;
  Naming naming;
  // What a match names, for people: "cluster" (a config.json entry) or
  // "holder" (a NETNS_EXEC_TARGETS entry).
  const char* noun;
  // What its calls name, for people and explain's JSON key: "monitors" or
  // "target".
  const char* named_as;
  // Which netNamespaceFilePath of config.json is its driver's (none for
  // nvme: ceph-csi's config has no nvmeof section).
  std::optional<ConfigKind> kind;
  // Where its holders publish when NETNS_EXEC_HOLDER_DIR is unset: the
  // driver's plugin directory.
  const char* holder_dir;
  // The calls that open a kernel session, for people ("map, device map").
  const char* session_calls;
  // The allow-lists (issue 44: a session-opening call is routed only when
  // every word of it is known): the options of its command line (besides
  // Ceph's own, monitors.hpp), the keys of its -o list, and per subcommand
  // (nvme) their options. What a word means to the decision is its Means;
  // tools.cpp says, per group, why a harmless one cannot change where the
  // call connects.
  std::vector<Option> options;
  std::vector<Option> keys;
  std::vector<Command> commands;
  // Whether this call opens a kernel session: a session-opening call whose
  // cluster cannot be told is refused; any other call is never refused.
  bool (*opens_session)(const Tool& tool, const std::vector<std::string>& args);
  // What the call names (servers, or why they cannot be told), and the
  // first word of it no allow-list knows (Named::not_understood).
  Named (*names)(const Tool& tool, const std::vector<std::string>& args,
                 const CephEnvironment& env);
};

// Every row, in the order the documentation lists them.
const std::vector<Tool>& tools();

// The row for argv[0]'s basename; nullptr when netns-exec is not one of them.
const Tool* tool_named(std::string_view basename);

}  // namespace netns::exec::shim
