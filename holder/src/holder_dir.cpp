#include "holder_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::holder {

namespace {

constexpr const char* kDirHint =
    "--dir must be a directory this holder can create files in "
    "(a hostPath mounted read-write into the holder pod)";

void make_parents(const std::string& dir) {
  // mkdir -p: each prefix in turn; EEXIST (a directory or not) is left for
  // the final open(O_DIRECTORY) to judge.
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    std::string prefix = dir.substr(0, slash);
    if (!prefix.empty() && prefix.back() != '/' && ::mkdir(prefix.c_str(), 0755) != 0 &&
        errno != EEXIST)
      throw Error::sys("mkdir", prefix, errno, kDirHint);
    if (slash == std::string::npos) return;
  }
}

}  // namespace

UniqueFd open_holder_dir(const std::string& dir, bool create) {
  if (create) make_parents(dir);
  try {
    // O_RDONLY rather than O_PATH: fsync(dirfd) after each rename needs a real open file.
    return open_fd(dir, O_RDONLY | O_DIRECTORY);
  } catch (Error& e) {
    throw e.default_hint(kDirHint);
  }
}

trust::Owners holder_owners() {
  trust::Owners owners;
  if (::geteuid() != 0) owners.uids.push_back(::geteuid());
  return owners;
}

void require_trusted_dir(int dirfd, const std::string& dir_shown) {
  trust::Finding f = trust::directory_chain(dirfd, dir_shown, holder_owners());
  if (!f.ok) throw f.error().context("refusing to publish");
}

UniqueFd take_holder_lock(int dirfd, const HolderFileNames& names, const std::string& dir_shown) {
  std::string shown = join_path(dir_shown, names.lock);
  UniqueFd fd;
  try {
    // O_NOFOLLOW|O_NONBLOCK: a symlink or FIFO planted at this name must not
    // redirect or hang us.
    fd = open_at(dirfd, names.lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0644, shown);
  } catch (Error& e) {
    throw e.default_hint(kDirHint);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error::sys("fstat", shown, errno);
  if (!S_ISREG(st.st_mode))
    throw Error(Errc::system, quote(shown) + " is not a regular file",
                "remove it; the holder recreates it");
  if (trust::Finding owner =
          trust::file_owner(trust::kLockOwner, st, "lock", shown, holder_owners());
      !owner.ok)
    throw owner.error().context("refusing to publish");
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    if (err != EWOULDBLOCK) throw Error::sys("flock", shown, err);
    throw Error(
        Errc::busy,
        "another netns-holder (pid " + lock_owner_text(fd.get()) + ") already holds " +
            quote(shown),
        "one holder per cluster ID and node: stop the other one, or use another --cluster-id");
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) != 0) throw Error::sys("ftruncate", shown, errno);
  if (::pwrite(fd.get(), pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))
    throw Error::sys("write", shown, errno);
  return fd;
}

std::string lock_owner_text(int lock_fd) {
  char buf[32] = {};
  ssize_t n = ::pread(lock_fd, buf, sizeof buf - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid += buf[i];
  return pid.empty() ? "unknown" : pid;
}

}  // namespace netns::holder
