#pragma once
// Cluster IDs become file names in a shared hostPath (<ID>.net.ns, ...), so
// they are validated before any path is built from them: 1-64 characters of
// [A-Za-z0-9._-], not "." or "..", no leading '-' (it would read as a flag).
#include <optional>
#include <string>
#include <string_view>

namespace netns {

inline constexpr size_t kMaxClusterIdLength = 64;

// Why `id` is not a valid cluster ID, or nullopt when it is.
std::optional<std::string> cluster_id_problem(std::string_view id);

// Throws Error(invalid_argument) naming the value and the rule.
void validate_cluster_id(std::string_view id);

// The suffixes of the files a holder publishes, defined here only.
inline constexpr std::string_view kLinkSuffix = ".net.ns";
inline constexpr std::string_view kRecordSuffix = ".holder.json";
inline constexpr std::string_view kSocketSuffix = ".net.sock";
inline constexpr std::string_view kLockSuffix = ".lock";
// Not the holder's: netns-exec guard --announce-replacement's notice.
inline constexpr std::string_view kNoticeSuffix = ".replacing";

// The cluster ID a holder file name implies ("ceph-a.net.ns" with
// kLinkSuffix -> "ceph-a"); "" when the name does not end in `suffix` or what
// is left is not a valid cluster ID.
std::string cluster_id_from_file_name(std::string_view name, std::string_view suffix);

// The files a holder publishes for a cluster, as names inside the holder dir.
struct HolderFileNames {
  std::string ns_link;  // <ID>.net.ns
  std::string record;   // <ID>.holder.json
  std::string socket;   // <ID>.net.sock
  std::string lock;     // <ID>.lock
};
// Validates `id` first.
HolderFileNames holder_file_names(std::string_view id);

}  // namespace netns
