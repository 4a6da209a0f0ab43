#pragma once
// The SOURCE option group every namespace-using subcommand shares, and the one
// function that turns it into a validated descriptor:
//   --netns PATH | --cluster-id ID [--config FILE] [--kind rbd|cephfs|nfs] | --socket PATH
//   [--wait-holder DURATION] [--identity require|if-present|off] [--allow-own-netns]
//   [--allow-host-netns] [--allow-userns] [--allow-unrecorded-netns] [--trust-uid UID ...]
#include <CLI/CLI.hpp>

#include <sys/types.h>

#include <string>
#include <vector>

#include "netns_exec/source.hpp"

namespace netns::exec::shim {
struct Decision;  // netns_exec/shim/decision.hpp
}  // namespace netns::exec::shim

namespace netns::cli {

struct SourceOptions {
  std::string netns;
  std::string cluster_id;
  std::string config = exec::kDefaultCephCsiConfig;
  std::string kind = "rbd";
  std::string socket;
  std::string wait_holder = "0s";
  std::string identity = "require";
  bool allow_own_netns = false;
  bool allow_host_netns = false;
  bool allow_userns = false;
  bool allow_unrecorded_netns = false;
  std::vector<uid_t> trust_uids;

  // Adds the group "SOURCE" to `app`.
  void add_to(CLI::App& app);

  // Throws Error(invalid_argument) unless exactly one of --netns,
  // --cluster-id, --socket was given, or for a bad --kind/--wait-holder/--identity.
  [[nodiscard]] exec::Source source() const;
  [[nodiscard]] exec::ResolveOptions resolve_options() const;
};

// source(), with --cluster-id decided as transparent mode decides it where
// the environment sets that up (netns_exec/shim/decision.hpp, decide_cluster):
// a held cluster's holder file in NETNS_EXEC_HOLDER_DIR when config.json
// names none. Throws the decision's refusal (a held list naming an ID the
// config lacks).
exec::Source decided_source(const SourceOptions& options);
// The decision itself (verdict refused instead of a throw), for doctor.
exec::shim::Decision cluster_decision(const SourceOptions& options);

// decided_source() + resolve_options() + exec::resolve() (resolve_source.cpp, which also
// sets the log fields source, path, cluster, step): the validated namespace, or
// a netns::Error (exit 125) naming cluster/path, step, errno text and hint.
exec::ResolvedNamespace resolve_source(const SourceOptions& options);

}  // namespace netns::cli
