#include "holder_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/path.hpp"
#include "netns/proc.hpp"
#include "netns/trust.hpp"
#include "netns_exec/redact.hpp"

namespace netns::cli {

CheckedRecord checked_holder_record(const std::string& record_path, NsId guarded) {
  const auto [dir, name] = split_path(record_path);
  UniqueFd dirfd = open_fd(dir, O_PATH | O_DIRECTORY);
  struct stat st {};
  auto record = read_record_at(dirfd.get(), name, record_path, &st);
  if (!record)
    throw Error::sys("open", record_path, ENOENT,
                     "is --holder-record the <ID>.holder.json this pod's holder publishes?",
                     Errc::not_found);
  // The directory, then the one judge (netns/trust.hpp): the guard
  // writes into the process this record names, so it must be a root-written
  // record of a live holder whose namespace is the guarded one.
  if (trust::Finding f = trust::directory_chain(dirfd.get(), dir, trust::Owners{}); !f.ok)
    throw f.error();
  const std::string lock_shown = join_path(dir, holder_file_names(record->cluster_id).lock);
  struct stat lock_st {};
  const bool lock_present =
      ::fstatat(dirfd.get(), holder_file_names(record->cluster_id).lock.c_str(), &lock_st,
                AT_SYMLINK_NOFOLLOW) == 0;
  dirfd.reset();
  trust::Gathered g;
  g.record_shown = record_path;
  g.record = &*record;
  g.record_st = &st;
  g.opened = guarded;
  g.lock_st = lock_present ? &lock_st : nullptr;
  g.lock_shown = lock_shown;
  CheckedRecord out;
  for (const trust::Finding& f : trust::judge_holder(g, trust::Policy{}, out.holder))
    if (!f.ok) throw f.error();
  out.record = std::move(*record);
  return out;
}

HolderLog HolderLog::open(const std::string& record_path, NsId guarded) {
  CheckedRecord checked = checked_holder_record(record_path, guarded);
  const HolderRecord& record = checked.record;
  // O_APPEND: a container log that is a regular file (the e2e suite's runc
  // pods) is appended to, not overwritten from offset 0; containerd and
  // CRI-O give containers pipes. O_NONBLOCK: a pipe nobody drains must not
  // stall the guard.
  const std::string path = "/proc/" + std::to_string(record.pid) + "/fd/2";
  UniqueFd fd = open_fd(path, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK);
  // Checked again after the open: had the holder exited and its pid been
  // reused in between, the descriptor would be a stranger's stderr.
  if (trust::Finding f = trust::holder_still_alive(record, checked.holder); !f.ok) {
    Error e = f.error();
    e.context("holder record " + quote(record_path) + ": while its stderr was being opened");
    throw e;
  }
  return HolderLog(std::move(fd), std::move(checked.record));
}

void HolderLog::line(std::string_view text) const {
  std::string out = "netns-exec guard: " + exec::redact(text);
  out += '\n';
  // One write: a pipe write of up to PIPE_BUF bytes is atomic, so the line
  // is never interleaved with the holder's own.
  ssize_t n;
  do {
    n = ::write(fd_.get(), out.data(), out.size());
  } while (n < 0 && errno == EINTR);
}

}  // namespace netns::cli
