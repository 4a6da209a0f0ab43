#pragma once
// `netns-exec doctor`: one check per line, PASS/FAIL/SKIP with a hint, in
// the order an operator would debug: the file, the namespace, the holder, the
// interfaces, then each monitor (route, then a bounded TCP connect from
// inside the namespace). This is the check mechanism; which source and which
// monitors to use is decided by the CLI.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns/trust.hpp"
#include "netns_exec/inspect/ip_address.hpp"

namespace netns::inspect {

enum class CheckStatus { pass, fail, skip };
const char* status_name(CheckStatus s) noexcept;  // "PASS", "FAIL", "SKIP"

struct Check {
  std::string name;  // "file exists", "route to 198.18.0.10:6789", ...
  CheckStatus status = CheckStatus::skip;
  std::string detail;  // what was found
  std::string hint;    // what to do (FAIL only)
};

// The file-level lines: the trust policy's findings (netns/trust.hpp), as
// exec::inspect_source() runs them, one line each; a fact that cannot be
// known here, or a check that does not apply, is SKIP.
std::vector<Check> checks_from(const std::vector<trust::Finding>& findings);

// Checks inside the namespace `nsfd`: lo up; a non-loopback interface up with
// an address; for each monitor a route and a TCP connect bounded by
// `connect_timeout`.
std::vector<Check> check_inside(int nsfd, std::string_view shown,
                                const std::vector<Endpoint>& monitors,
                                std::chrono::milliseconds connect_timeout);

// The plugin's own line per monitor, from doctor's own namespace (the plugin
// container's, where an operator runs it): "plugin's route to ADDR:PORT". A
// route lookup only, no packet sent. ceph-csi opens its own RADOS connections
// (CreateVolume, NodeStageVolume before any `rbd map`) from there, so a
// plugin without that route stages nothing, whatever the holder has.
std::vector<Check> check_plugin_route(const std::vector<Endpoint>& monitors);

// "PASS  name  detail" lines, aligned, each FAIL followed by "      hint: ...".
std::string render_checks(const std::vector<Check>& checks);
bool all_passed(const std::vector<Check>& checks);  // no FAIL (SKIP is not a failure)
// `doctor --json`: {"ok": bool, "checks": [{"name", "status": "PASS|FAIL|SKIP", "detail",
// "hint"|null}]}.
std::string checks_json(const std::vector<Check>& checks);

// The "monitors" of `cluster_id` in ceph-csi's config (a JSON array of
// {"clusterID", "monitors": ["ADDR:PORT", ...], ...}). A monitor without a
// port gets 6789. Throws Error (not_found, invalid_argument) naming the file,
// the cluster and the bad entry.
std::vector<Endpoint> monitors_from_config(const std::string& config,
                                           const std::string& cluster_id);

}  // namespace netns::inspect
