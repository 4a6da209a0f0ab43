// resolve_source(): SourceOptions turned into a validated namespace, with the
// log fields (--log-format json) that say what the following lines are about.
// Apart from source_options.cpp, which the fuzzers build without logging.
#include "log.hpp"
#include "source_options.hpp"

namespace netns::cli {

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
  exec::ResolvedNamespace ns = exec::resolve(options.source(), options.resolve_options());
  if (!ns.path.empty()) set_log_field("path", ns.path);
  if (!ns.cluster_id.empty()) set_log_field("cluster", ns.cluster_id);
  set_log_field("netns_ino", ns.id.ino);
  return ns;
}

}  // namespace netns::cli
