// resolve_source(): SourceOptions turned into a validated namespace, with the
// log fields (--log-format json) that say what the following lines are about.
// Apart from source_options.cpp, which the fuzzers build without logging.
#include "log.hpp"
#include "netns_exec/shim/decision.hpp"
#include "source_options.hpp"

namespace netns::cli {

exec::shim::Decision cluster_decision(const SourceOptions& options) {
  const exec::Source source = options.source();
  if (source.kind != exec::Source::Kind::cluster) {
    exec::shim::Decision d;
    d.verdict = exec::shim::Verdict::holder;
    d.source = source;
    return d;
  }
  // --cluster-id takes transparent mode's decision where the plugin's
  // environment sets it up, so a held cluster is served from its holder here
  // as the shims serve it.
  return exec::shim::decide_cluster(source.cluster_id, source.config_kind, source.config,
                                    exec::shim::Environment::from_process());
}

exec::Source decided_source(const SourceOptions& options) {
  exec::shim::Decision d = cluster_decision(options);
  if (d.verdict == exec::shim::Verdict::refused) throw *d.refusal;
  return *d.source;
}

exec::ResolvedNamespace resolve_source(const SourceOptions& options) {
  set_log_field("step", "resolve");
  if (!options.netns.empty()) {
    set_log_field("source", "netns");
    set_log_field("path", options.netns);
  } else if (!options.socket.empty()) {
    set_log_field("source", "socket");
    set_log_field("path", options.socket);
  } else if (!options.cluster_id.empty()) {
    set_log_field("source", "cluster");
    set_log_field("cluster", options.cluster_id);
    set_log_field("config", options.config);
    set_log_field("kind", options.kind);
  }
  exec::ResolvedNamespace ns = exec::resolve(decided_source(options), options.resolve_options());
  if (!ns.path.empty()) set_log_field("path", ns.path);
  if (!ns.cluster_id.empty()) set_log_field("cluster", ns.cluster_id);
  set_log_field("netns_ino", ns.id.ino);
  return ns;
}

}  // namespace netns::cli
