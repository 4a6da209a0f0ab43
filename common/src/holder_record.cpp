#include "netns/holder_record.hpp"

#include <fcntl.h>

#include <array>
#include <cerrno>
#include <limits>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/flat_json.hpp"

namespace netns {

namespace {

// Version 1's fields, then what version 2 added.
constexpr std::array<std::string_view, 12> kFields = {
    "version",          "cluster_id",  "pid",     "pid_start_time", "netns_dev",
    "netns_ino",        "pidns_ino",   "boot_id", "created_unix",   "socket",
    "holder_pidfs_ino", "netns_cookie"};
constexpr size_t kV1Fields = 10;
// Added by version 2 and optional there (a version-2 reader must not depend
// on it: a fence tool that finds none says so).
constexpr std::string_view kClientAddresses = "client_addresses";

const FlatJsonValue& member(const FlatJsonObject& obj, std::string_view key) {
  for (const auto& [k, v] : obj)
    if (k == key) return v;
  throw Error(Errc::invalid_argument, "field " + quote(key) + " is missing");
}

uint64_t integer(const FlatJsonObject& obj, std::string_view key) {
  const FlatJsonValue& v = member(obj, key);
  if (v.kind != FlatJsonValue::Kind::integer)
    throw Error(Errc::invalid_argument, "field " + quote(key) + " is not an integer");
  return v.integer;
}

std::string string(const FlatJsonObject& obj, std::string_view key) {
  const FlatJsonValue& v = member(obj, key);
  if (v.kind != FlatJsonValue::Kind::string)
    throw Error(Errc::invalid_argument, "field " + quote(key) + " is not a string");
  return v.string;
}

// An integer, or null where the holder's kernel had none.
std::optional<uint64_t> optional_integer(const FlatJsonObject& obj, std::string_view key) {
  const FlatJsonValue& v = member(obj, key);
  if (v.kind == FlatJsonValue::Kind::null) return std::nullopt;
  if (v.kind != FlatJsonValue::Kind::integer || v.integer == 0)
    throw Error(Errc::invalid_argument,
                "field " + quote(key) + " is neither a non-zero integer nor null");
  return v.integer;
}

HolderRecord parse_fields(const FlatJsonObject& obj) {
  // The version first: a record from a newer holder must say "unsupported
  // version", not complain about a field it added.
  uint64_t version = integer(obj, "version");
  if (version < HolderRecord::kOldestRead || version > HolderRecord::kVersion)
    throw Error(Errc::unsupported,
                "record version " + std::to_string(version) +
                    " is not supported (this build reads versions " +
                    std::to_string(HolderRecord::kOldestRead) + " to " +
                    std::to_string(HolderRecord::kVersion) + ")",
                "run the same netns-holder and netns-exec release on this node");
  // Strict per version: a version-1 record with a version-2 field is as
  // malformed as one with a field nobody defined.
  const size_t fields = version == 1 ? kV1Fields : kFields.size();
  for (const auto& [key, value] : obj) {
    bool known = false;
    for (size_t i = 0; i < fields; ++i) known = known || key == kFields[i];
    known = known || (version >= 2 && key == kClientAddresses);
    if (!known) throw Error(Errc::invalid_argument, "unknown field " + quote(key));
  }
  HolderRecord r;
  r.version = version;
  r.cluster_id = string(obj, "cluster_id");
  validate_cluster_id(r.cluster_id);
  uint64_t pid = integer(obj, "pid");
  if (pid == 0 || pid > static_cast<uint64_t>(std::numeric_limits<pid_t>::max()))
    throw Error(Errc::invalid_argument, "field \"pid\" is out of range");
  r.pid = static_cast<pid_t>(pid);
  r.pid_start_time = integer(obj, "pid_start_time");
  r.netns.dev = integer(obj, "netns_dev");
  r.netns.ino = integer(obj, "netns_ino");
  r.pidns_ino = integer(obj, "pidns_ino");
  r.boot_id = string(obj, "boot_id");
  r.created_unix = integer(obj, "created_unix");
  const FlatJsonValue& sock = member(obj, "socket");
  if (sock.kind == FlatJsonValue::Kind::string) {
    r.socket = sock.string;
  } else if (sock.kind != FlatJsonValue::Kind::null) {
    throw Error(Errc::invalid_argument, "field \"socket\" is neither a string nor null");
  }
  if (version >= 2) {
    r.holder_pidfs_ino = optional_integer(obj, "holder_pidfs_ino");
    r.netns_cookie = optional_integer(obj, "netns_cookie");
  }
  for (const auto& [key, value] : obj)
    if (key == kClientAddresses) r.client_addresses = parse_client_addresses(string(obj, key));
  return r;
}

}  // namespace

std::string serialize_record(const HolderRecord& r) {
  FlatJsonWriter w;
  w.add("version", r.version)
      .add("cluster_id", r.cluster_id)
      .add("pid", static_cast<uint64_t>(r.pid))
      .add("pid_start_time", r.pid_start_time)
      .add("netns_dev", r.netns.dev)
      .add("netns_ino", r.netns.ino)
      .add("pidns_ino", r.pidns_ino)
      .add("boot_id", r.boot_id)
      .add("created_unix", r.created_unix);
  if (r.socket)
    w.add("socket", *r.socket);
  else
    w.add_null("socket");
  if (r.version >= 2) {
    if (r.holder_pidfs_ino)
      w.add("holder_pidfs_ino", *r.holder_pidfs_ino);
    else
      w.add_null("holder_pidfs_ino");
    if (r.netns_cookie)
      w.add("netns_cookie", *r.netns_cookie);
    else
      w.add_null("netns_cookie");
  }
  if (r.version >= 2 && r.client_addresses)
    w.add(kClientAddresses, format_client_addresses(*r.client_addresses));
  return w.finish();
}

HolderRecord parse_record(std::string_view text, std::string_view shown) {
  try {
    return parse_fields(parse_flat_json(text));
  } catch (Error& e) {
    e.context("holder record " + quote(shown));
    e.default_hint(
        "the record is written by netns-holder; a damaged one is replaced when the holder "
        "restarts");
    throw;
  }
}

std::optional<HolderRecord> read_record_at(int dirfd, const std::string& name,
                                           std::string_view shown, struct stat* st) {
  auto fd = open_regular_at_if_exists(dirfd, name, O_NOFOLLOW, shown);
  if (!fd) return std::nullopt;
  if (st && ::fstat(fd->get(), st) != 0) throw Error::sys("fstat", shown, errno);
  return parse_record(read_all(fd->get(), shown, 64 * 1024), shown);
}

}  // namespace netns
