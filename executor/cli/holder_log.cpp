#include "holder_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/proc.hpp"
#include "netns/trust.hpp"
#include "netns_exec/redact.hpp"

namespace netns::cli {

CheckedRecord checked_holder_record(const std::string& record_path, NsId guarded) {
  const auto slash = record_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : record_path.substr(0, slash);
  const std::string name = slash == std::string::npos ? record_path : record_path.substr(slash + 1);
  UniqueFd dirfd = open_fd(dir, O_PATH | O_DIRECTORY);
  struct stat st {};
  auto record = read_record_at(dirfd.get(), name, record_path, &st);
  if (!record)
    throw Error::sys("open", record_path, ENOENT,
                     "is --holder-record the <ID>.holder.json this pod's holder publishes?",
                     Errc::not_found);
  // The trust policy's own checks (netns/trust.hpp), in resolve()'s order:
  // the guard writes into the process this record names, so it must be a
  // root-written record of a live holder whose namespace is the guarded one.
  auto require = [](const trust::Finding& f) {
    if (!f.ok) throw f.error();
  };
  require(trust::directory_chain(dirfd.get(), dir, trust::Owners{}));
  require(
      trust::file_owner(trust::kRecordOwner, st, "holder record", record_path, trust::Owners{}));
  require(trust::record_this_boot(*record, record_path));
  require(trust::record_this_pid_namespace(*record, record_path));
  UniqueFd pidfd;
  require(trust::holder_alive(*record, record_path, &pidfd));
  require(trust::identity_matches(*record, guarded, pidfd ? pidfd.get() : -1, record_path));
  return CheckedRecord{std::move(*record), std::move(pidfd)};
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
  if (trust::Finding f =
          trust::holder_still_alive(record, checked.pidfd ? checked.pidfd.get() : -1);
      !f.ok) {
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
