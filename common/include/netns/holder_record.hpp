#pragma once
// <ID>.holder.json: who published <ID>.net.ns. A reader that opened the link
// compares the namespace it got with this record, and the record's pid with
// the live process (pid + start time), before it trusts either.
//
// Format, a flat JSON object; every field of its version is required and no
// other field is allowed, except client_addresses, optional in version 2. A
// new field means a new version (DESIGN §9): this build writes version 2 and
// reads 1 and 2.
//   version         1
//   cluster_id      the validated cluster ID
//   pid             the holder's pid, as seen in the holder's pid namespace
//   pid_start_time  field 22 of /proc/<pid>/stat (clock ticks after boot)
//   netns_dev       st_dev of the holder's /proc/self/ns/net
//   netns_ino       st_ino of the same
//   pidns_ino       st_ino of the holder's /proc/self/ns/pid
//   boot_id         /proc/sys/kernel/random/boot_id when published
//   created_unix    publication time, seconds since the epoch
//   socket          name of the <ID>.net.sock in the same directory, or null
//   client_addresses  (version 2) the namespace's addresses a kernel Ceph
//                   client can be seen from, format_client_addresses() form
//                   ("198.18.0.5/20%net1 ..."); kept current by the holder
// Version 2 adds two identities the kernel never reuses within a boot
// (kernel_ids.hpp), each null where the holder's kernel has none:
//   holder_pidfs_ino  the pidfs inode of a pidfd for the holder (Linux 6.9+)
//   netns_cookie      the holder's network namespace cookie (SO_NETNS_COOKIE,
//                     Linux 5.14+; NS_GET_ID of its nsfs file gives the same)
// A version-1 record has neither, and is checked without them.
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <vector>

#include "netns/api.h"
#include "netns/client_addresses.hpp"
#include "netns/nsfd.hpp"

namespace netns {

struct HolderRecord {
  static constexpr uint64_t kVersion = 2;  // what this release writes
  static constexpr uint64_t kOldestRead = 1;

  uint64_t version = kVersion;
  std::string cluster_id;
  pid_t pid = 0;
  uint64_t pid_start_time = 0;
  NsId netns;
  uint64_t pidns_ino = 0;
  std::string boot_id;
  uint64_t created_unix = 0;
  std::optional<std::string> socket;
  std::optional<uint64_t> holder_pidfs_ino;  // version 2
  std::optional<uint64_t> netns_cookie;      // version 2
  // nullopt: the record does not say (version 1); empty: no usable address.
  std::optional<std::vector<ClientAddress>> client_addresses;

  friend bool operator==(const HolderRecord&, const HolderRecord&) = default;
};

NETNS_EXEC_API std::string serialize_record(const HolderRecord& record);

// Strict: malformed JSON, an unknown version, a missing, extra or mistyped
// field, or an invalid cluster ID is an Error (invalid_argument, or
// unsupported for the version). `shown` names the file in messages.
NETNS_EXEC_API HolderRecord parse_record(std::string_view text, std::string_view shown);

// Reads <dir>/<name> without following a symlink, without blocking and with
// a bound (a FIFO or a device there is an error at once); nullopt when it
// does not exist. `st`, when given, receives the file's fstat (its owner is
// checked by the trust policy).
NETNS_EXEC_API std::optional<HolderRecord> read_record_at(int dirfd, const std::string& name,
                                                          std::string_view shown,
                                                          struct stat* st = nullptr);

}  // namespace netns
