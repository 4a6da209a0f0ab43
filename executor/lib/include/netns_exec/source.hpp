#pragma once
// Where the namespace comes from, and turning that into one validated
// descriptor. Policy lives here; the mechanism (opening, nsfs checks, the
// holder record, fd passing) is in netns_common.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "netns/api.h"
#include "netns/error.hpp"
#include "netns/holder_record.hpp"
#include "netns/holder_ref.hpp"
#include "netns/nsfd.hpp"
#include "netns/trust.hpp"
#include "netns/unique_fd.hpp"

namespace netns::exec {

inline constexpr const char* kDefaultCephCsiConfig = "/etc/ceph-csi-config/config.json";

// Which netNamespaceFilePath of a ceph-csi cluster entry applies.
enum class ConfigKind { rbd, cephfs, nfs };
// "rbd", "cephfs", "nfs"; throws Error(invalid_argument) for anything else.
NETNS_EXEC_API ConfigKind parse_config_kind(std::string_view text);
NETNS_EXEC_API const char* config_kind_name(ConfigKind kind) noexcept;

// How much of the holder's record must vouch for the namespace that was opened.
//   require     (default) a holder's <ID>.net.ns link must have its record, and
//               it must match; so must every other file in a holder directory
//               (one that holds any <ID>.holder.json or <ID>.lock), whatever
//               its name: its cluster's record; a file elsewhere
//               (/run/netns/NAME, /proc/PID/ns/net) is checked against its
//               cluster's record where one is present, and with none needs
//               allow_unrecorded_netns (under every policy)
//   if_present  a record next to the link must match; no record is fine: what
//               record-less (Rook-era) holders need, and it gives up the proof
//               that a live holder, not a reused pid, stands behind the link
//   off         the record is not read (every other check still applies)
enum class IdentityPolicy { require, if_present, off };
NETNS_EXEC_API IdentityPolicy
parse_identity_policy(std::string_view text);  // "require|if-present|off"
NETNS_EXEC_API const char* identity_policy_name(IdentityPolicy policy) noexcept;

struct NETNS_EXEC_API Source {
  enum class Kind { path, cluster, socket };
  Kind kind = Kind::path;
  std::string path;  // path: the namespace file or a holder socket; socket: the holder's socket
  std::string cluster_id;  // cluster: the ID to look up
  std::string config = kDefaultCephCsiConfig;
  ConfigKind config_kind = ConfigKind::rbd;

  static Source netns_path(std::string path);
  static Source cluster(std::string id, std::string config = kDefaultCephCsiConfig,
                        ConfigKind kind = ConfigKind::rbd);
  static Source socket(std::string path);

  // "netns \"/x/a.net.ns\"", "cluster \"a\" (rbd, \"/etc/...\")", "socket \"...\"".
  [[nodiscard]] std::string describe() const;
};

struct ResolveOptions {
  // How long a missing namespace file or socket is waited for (0: not at all).
  std::chrono::nanoseconds wait_holder{0};
  IdentityPolicy identity = IdentityPolicy::require;
  // Accept the caller's own network namespace (normally a misconfiguration:
  // work done there dies with the plugin pod).
  bool allow_own_netns = false;
  // With allow_own_netns: our own namespace only where a holder's record
  // vouched for it (transparent mode inside a holder's namespace already).
  bool own_netns_needs_record = false;
  // Accept the host's (initial) network namespace.
  bool allow_host_netns = false;
  // Accept a namespace owned by a non-initial user namespace.
  bool allow_userns = false;
  // Accept a namespace file no holder record vouches for and that is not in
  // a holder directory: /run/netns/NAME, /proc/PID/ns/net, any other file
  // that is not a holder's <ID>.net.ns. Without it such a file is refused
  // (Errc::untrusted): nothing proves whose namespace it is. A file in a
  // holder directory stays refused without its record either way.
  bool allow_unrecorded_netns = false;
  // Besides root, the uids whose holder files and sockets are trusted.
  std::vector<uid_t> trust_uids;
  // Keep what this call verified (the namespace the link led to, the parsed
  // record, the holder's pidfd) for the next call in this process, which then
  // does not follow the link again; every check still runs on every call. A
  // process that resolves once (netns-exec) has no next call and turns it off.
  bool remember = true;
};

// The outcome of resolving a Source: either a validated namespace descriptor,
// or "no holder configured" (ceph-csi's empty netNamespaceFilePath), in which
// case the command runs in the caller's own namespace.
struct NETNS_EXEC_API ResolvedNamespace {
  UniqueFd fd;                         // the validated descriptor; empty when own_namespace
  NsId id;                             // identity of fd (or of the caller's namespace)
  bool own_namespace = false;          // true: no holder configured, run where we are
  std::string path;                    // the file or socket the descriptor came from ("" if none)
  std::string cluster_id;              // given or derived from the file name ("" if unknown)
  std::optional<HolderRecord> record;  // the record that vouched for fd, if any
  HolderRef holder;  // the record's holder, with its pidfd (spawn-time re-check), if any
  // Not a refusal, but what the caller should be told: set with
  // own_namespace, when the cluster's config entry names no holder for the
  // kind (no_holder_path_warning(): perhaps a holder whose path is missing).
  std::string warning;

  // One line for logs and JSON: where, which namespace, who vouched for it.
  [[nodiscard]] std::string describe() const;
};

// Opens the namespace once and validates the descriptor: on nsfs, a network
// namespace, not the caller's own (unless allowed), and the identity policy.
// A path (Kind::path, or the config's netNamespaceFilePath) that is a unix
// socket is a holder's <ID>.net.sock: the namespace is asked of the holder
// over it and validated as for Kind::socket (header cluster ID against the
// file name's <ID> and the cluster ID asked about, header identity against
// the descriptor received). A record next to a link that says the holder
// runs in another pid namespace is refused before the link is followed.
// The descriptor returned is the one that was validated; enter that one.
// Throws netns::Error naming the cluster ID and/or path, the failed step, the
// errno text and what to check.
NETNS_EXEC_API ResolvedNamespace resolve(const Source& source, const ResolveOptions& options = {});

// The same checks as resolve(), in the same order, without stopping at a
// failure that leaves something else to check: what `netns-exec doctor`
// prints, one finding per check made. `error` is resolve()'s refusal when a
// check or a step between checks (opening, reading, receiving) failed; a
// failure that leaves nothing further to check ends the list there. `ns`
// holds the validated descriptor only when `error` is empty.
struct Inspection {
  std::vector<trust::Finding> findings;
  ResolvedNamespace ns;
  std::optional<Error> error;
};
NETNS_EXEC_API Inspection inspect_source(const Source& source, const ResolveOptions& options = {});

// The spawn-time re-check: the holder whose record vouched for `ns` is still
// alive (through its pidfd). Throws Error(stale_holder) naming the cluster.
NETNS_EXEC_API void recheck_holder(const ResolvedNamespace& ns);

// The ceph-csi config lookup on its own: the netNamespaceFilePath for `id`
// and `kind` in the JSON file `config`, "" when empty or absent. Throws for a
// missing file, malformed JSON, an invalid or absent cluster ID.
NETNS_EXEC_API std::string lookup_netns_path(const std::string& config, const std::string& id,
                                             ConfigKind kind);

}  // namespace netns::exec
