#include "netns/replacement_notice.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <limits>

#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/flat_json.hpp"
#include "netns/path.hpp"
#include "netns/trust.hpp"

namespace netns {

namespace {

struct Location {
  std::string dir;
  std::string name;  // the notice's file name
};

Location locate(const std::string& record_path) {
  auto [dir, name] = split_path(record_path);
  if (name.size() <= kRecordSuffix.size() ||
      name.compare(name.size() - kRecordSuffix.size(), kRecordSuffix.size(), kRecordSuffix) != 0)
    throw Error(Errc::invalid_argument,
                "--holder-record " + quote(record_path) + " is not a <ID>.holder.json path");
  name.resize(name.size() - kRecordSuffix.size());
  name += kNoticeSuffix;
  return {std::move(dir), std::move(name)};
}

uint64_t integer(const FlatJsonObject& obj, std::string_view key, const std::string& shown) {
  for (const auto& [k, v] : obj)
    if (k == key) {
      if (v.kind != FlatJsonValue::Kind::integer) break;
      return v.integer;
    }
  throw Error(Errc::invalid_argument,
              "replacement notice " + quote(shown) + ": field " + quote(key) +
                  " is missing or not an integer",
              "it is written by `netns-exec guard --announce-replacement`; remove it");
}

}  // namespace

std::string notice_path(const std::string& record_path) {
  Location at = locate(record_path);
  return join_path(at.dir, at.name);
}

void write_notice(const std::string& record_path, const ReplacementNotice& n) {
  Location at = locate(record_path);
  // O_RDONLY, not O_PATH: the atomic write fsyncs the directory.
  UniqueFd dir = open_fd(at.dir, O_RDONLY | O_DIRECTORY);
  FlatJsonWriter w;
  w.add("version", ReplacementNotice::kVersion)
      .add("pid", static_cast<uint64_t>(n.pid))
      .add("pid_start_time", n.pid_start_time)
      .add("until_unix", n.until_unix);
  write_file_atomic(dir.get(), at.name, w.finish(), 0644, at.dir);
}

std::optional<ReplacementNotice> read_notice(const std::string& record_path) {
  Location at = locate(record_path);
  const std::string shown = join_path(at.dir, at.name);
  UniqueFd dir = open_fd(at.dir, O_PATH | O_DIRECTORY);
  auto fd = open_at_if_exists(dir.get(), at.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, shown);
  if (!fd) return std::nullopt;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) throw Error::sys("fstat", shown, errno);
  // Whoever may tell the guard not to hold must be trusted like the holder's
  // own files: the trust policy's owner rule, in a trusted directory.
  if (!S_ISREG(st.st_mode))
    throw Error(Errc::untrusted, "replacement notice " + quote(shown) + " is not a regular file",
                "remove it; announce with netns-exec guard --announce-replacement");
  for (const trust::Finding& f :
       {trust::directory_chain(dir.get(), at.dir, trust::Owners{}),
        trust::file_owner("notice owner", st, "replacement notice", shown, trust::Owners{})})
    if (!f.ok) throw f.error();
  FlatJsonObject obj = parse_flat_json(read_all(fd->get(), shown, 4096));
  uint64_t version = integer(obj, "version", shown);
  if (version != ReplacementNotice::kVersion)
    throw Error(Errc::unsupported,
                "replacement notice " + quote(shown) + ": version " + std::to_string(version) +
                    " is not supported (this build reads version 1)",
                "announce the replacement with the netns-exec of the holder image that runs now");
  ReplacementNotice n;
  uint64_t pid = integer(obj, "pid", shown);
  if (pid == 0 || pid > static_cast<uint64_t>(std::numeric_limits<pid_t>::max()))
    throw Error(Errc::invalid_argument,
                "replacement notice " + quote(shown) + ": pid out of range");
  n.pid = static_cast<pid_t>(pid);
  n.pid_start_time = integer(obj, "pid_start_time", shown);
  n.until_unix = integer(obj, "until_unix", shown);
  return n;
}

void remove_notice(const std::string& record_path) {
  Location at = locate(record_path);
  UniqueFd dir = open_fd(at.dir, O_PATH | O_DIRECTORY);
  if (::unlinkat(dir.get(), at.name.c_str(), 0) != 0 && errno != ENOENT)
    throw Error::sys("unlink", join_path(at.dir, at.name), errno);
}

}  // namespace netns
