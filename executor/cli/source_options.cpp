#include "source_options.hpp"

#include "netns/duration.hpp"
#include "netns/error.hpp"

namespace netns::cli {

void SourceOptions::add_to(CLI::App& app) {
  auto* group = app.add_option_group("SOURCE", "Where the network namespace comes from (one of)");
  auto* n = group->add_option("--netns", netns,
                              "Namespace file: a holder's <ID>.net.ns, or /run/netns/NAME, "
                              "/proc/PID/ns/net with --allow-unrecorded-netns");
  auto* c = group->add_option("--cluster-id", cluster_id,
                              "Look up netNamespaceFilePath for this cluster in ceph-csi's config");
  auto* s = group->add_option("--socket", socket, "Ask a holder's <ID>.net.sock for the namespace");
  n->excludes(c, s);
  c->excludes(s);
  group->add_option("--config", config, "ceph-csi cluster config (with --cluster-id)")
      ->capture_default_str();
  group->add_option("--kind", kind, "Which netNamespaceFilePath: rbd, cephfs or nfs")
      ->capture_default_str();
  group
      ->add_option("--wait-holder", wait_holder,
                   "Wait this long for a missing holder file (300ms, 10s, 2m)")
      ->capture_default_str();
  group
      ->add_option("--identity", identity,
                   "Holder record check: require (a holder's link needs its record), if-present "
                   "(record-less Rook-era links) or off")
      ->capture_default_str();
  group->add_flag("--allow-own-netns", allow_own_netns,
                  "Accept the caller's own network namespace");
  group->add_flag("--allow-host-netns", allow_host_netns, "Accept the host's network namespace");
  group->add_flag("--allow-userns", allow_userns,
                  "Accept a namespace owned by a non-initial user namespace");
  group->add_flag(
      "--allow-unrecorded-netns", allow_unrecorded_netns,
      "Accept a namespace file no holder record vouches for (/run/netns/NAME, /proc/PID/ns/net)");
  group->add_option(
      "--trust-uid", trust_uids,
      "Besides root, a uid whose holder directory, files and socket are trusted (repeatable)");
}

exec::Source SourceOptions::source() const {
  int given = !netns.empty() + !cluster_id.empty() + !socket.empty();
  if (given != 1)
    throw Error(
        Errc::invalid_argument,
        "give exactly one namespace source: --netns PATH, --cluster-id ID or --socket PATH");
  if (!netns.empty()) return exec::Source::netns_path(netns);
  if (!socket.empty()) return exec::Source::socket(socket);
  return exec::Source::cluster(cluster_id, config, exec::parse_config_kind(kind));
}

exec::ResolveOptions SourceOptions::resolve_options() const {
  exec::ResolveOptions out;
  out.wait_holder = parse_duration(wait_holder, "--wait-holder");
  out.identity = exec::parse_identity_policy(identity);
  out.allow_own_netns = allow_own_netns;
  out.allow_host_netns = allow_host_netns;
  out.allow_userns = allow_userns;
  out.allow_unrecorded_netns = allow_unrecorded_netns;
  out.trust_uids = trust_uids;
  out.remember = false;  // one process, one command: nothing to remember for
  return out;
}

}  // namespace netns::cli
