#pragma once
// Transparent mode's one decision, taken from argv[0], the arguments and the
// environment: which real program runs, whether in a holder's namespace
// (which cluster, which file, with which checks) or untouched, or whether
// nothing may run (125), and why. The shim, `shim explain`, `run
// --cluster-id` and `doctor --cluster-id` all take it here; the in-place
// engine (in_place.hpp) then carries it out. Policy only: the holder's file
// is opened and checked by exec::resolve(), the one path every form takes.
//
// Environment (the plugin container's; the chart and the Kustomize
// component render it):
//   NETNS_EXEC_CONFIG          ceph-csi's config.json (default /etc/ceph-csi-config/config.json)
//   NETNS_EXEC_HELD_CLUSTERS   comma-separated clusterIDs that have holders; unset: every
//                              cluster in the config (when it exists); set and empty: none.
//                              Every ID must be a clusterID of the config.
//   NETNS_EXEC_HOLDER_DIR      where <ID>.net.ns / .net.sock are (default: the tool's row)
//   NETNS_EXEC_TARGETS         nvme, mount.nfs: ID=ADDR[,ADDR...][;...] (targets.hpp)
//   NETNS_EXEC_UNMATCHED       "refuse" (unset: the default) or "own-netns": the one way to
//                              run a session-opening call that matches no held cluster, and
//                              that the shim cannot match at all, in the caller's namespace
//   CEPH_ARGS, CEPH_CONF, HOME what Ceph's tools read for their monitors (monitors.hpp)
//   NETNS_EXEC_REAL_PATH, PATH where the real program is (real_program.hpp)
//   NETNS_EXEC_IDENTITY, NETNS_EXEC_ALLOW_UNRECORDED_NETNS, NETNS_EXEC_WAIT_HOLDER
//                              the checks' opt-ins and the wait (in_place.hpp)
//
// The rules, in order (decide()):
//   1. no real program: refused;
//   2. a tool that names nothing (umount.nfs), or nothing declared held
//      (no config and no held list; no NETNS_EXEC_TARGETS): untouched;
//   3. a declaration that cannot be read (config.json, the held list, the
//      targets), or a held ID that config.json lacks: a session-opening call
//      is refused, any other call untouched;
//   3b. a word of a session-opening call that no allow-list of the tool's
//      row knows (an option, a CEPH_ARGS word, a config key, an
//      abbreviation the tool would expand): refused, naming it and where,
//      whatever NETNS_EXEC_UNMATCHED says;
//   4. every server the call names is read the way its consumer reads it
//      (addresses.hpp, monitors.hpp); readings that match differently, or
//      servers of two clusters: ambiguous, a session-opening call refused;
//   5. a held cluster among the matches: its holder, unless a session-opening
//      call also names servers no cluster has (refused: it is not clear
//      which cluster it opens sessions to);
//   6. matched, none held: untouched;
//   7. nothing matched, or what it names cannot be told: a session-opening
//      call is refused, unless NETNS_EXEC_UNMATCHED=own-netns; any other
//      call is untouched.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns/error.hpp"
#include "netns_exec/shim/monitors.hpp"
#include "netns_exec/shim/real_program.hpp"
#include "netns_exec/shim/tools.hpp"
#include "netns_exec/source.hpp"

namespace netns::exec::shim {

inline constexpr const char* kUnmatchedVariable = "NETNS_EXEC_UNMATCHED";

// The process environment, gathered once (from_process) so the decision
// itself reads no variable.
struct Environment {
  std::string config = kDefaultCephCsiConfig;
  std::optional<std::string> held;        // NETNS_EXEC_HELD_CLUSTERS, as set
  std::optional<std::string> holder_dir;  // NETNS_EXEC_HOLDER_DIR
  std::optional<std::string> targets;     // NETNS_EXEC_TARGETS, as set
  std::string unmatched;                  // NETNS_EXEC_UNMATCHED
  CephEnvironment ceph;
  std::string path_list = kDefaultPath;  // NETNS_EXEC_REAL_PATH, else PATH
  std::optional<FileIdentity> self;      // /proc/self/exe
  std::optional<ExecMark> exec_mark;     // NETNS_EXEC_EXEC_MARK: who exec'd us as the real program
  std::string identity;                  // NETNS_EXEC_IDENTITY
  std::string allow_unrecorded;          // NETNS_EXEC_ALLOW_UNRECORDED_NETNS
  std::string wait_holder;               // NETNS_EXEC_WAIT_HOLDER

  static Environment from_process();
  // Transparent mode is set up here (the component sets both variables):
  // `run`/`doctor --cluster-id` then serve a held cluster from its holder.
  [[nodiscard]] bool transparent() const { return held.has_value() || holder_dir.has_value(); }
};

enum class Verdict { untouched, holder, refused };
const char* verdict_name(Verdict v) noexcept;  // "untouched", "holder", "refused"

struct Decision {
  const Tool* tool = nullptr;  // nullptr: a --cluster-id decision
  std::string program;         // the name invoked ("rbd", "mount.nfs4")
  RealProgram real;
  bool opens_session = false;
  Named named;  // what the call names

  Verdict verdict = Verdict::untouched;
  std::string cluster_id;         // the config entry / declared holder matched ("" if none)
  std::vector<std::string> also;  // other entries with the same monitors
  std::optional<Source> source;   // holder: what resolve() opens
  std::string holder_path;        // holder: the file (config path, .net.sock or .net.ns)
  std::string holder_dir;         // where the tool's holders publish
  ResolveOptions options;         // holder: the checks to make
  std::string why;                // one sentence: why this verdict
  std::optional<Error> refusal;   // refused: what nothing ran for (exit 125)
  bool opted_out = false;         // untouched only by NETNS_EXEC_UNMATCHED=own-netns: warn

  // The held holder's file failed the checks: `e` with what it was for.
  [[nodiscard]] Error unusable(Error e) const;
};

// The shim's decision for `invoked_as` (argv[0]) with `args` (argv without
// argv[0]). Never throws: a refusal is a verdict.
Decision decide(std::string_view invoked_as, const std::vector<std::string>& args,
                const Environment& env);

// `run --cluster-id ID` and `doctor --cluster-id ID` in the same environment:
// the config entry's netNamespaceFilePath for `kind` when it has one (as
// ceph-csi reads it); else, where transparent mode is set up and ID is held,
// its holder's file in the holder directory; else ID is not held here and
// the caller's own namespace is what ceph-csi uses (Source::cluster says so
// with its warning). A held list with an ID the config lacks: refused.
Decision decide_cluster(const std::string& id, ConfigKind kind, const std::string& config,
                        const Environment& env);

}  // namespace netns::exec::shim
