#include "netns/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns {

namespace {
std::string temp_name(const std::string& name) {
  return "." + name + ".tmp." + std::to_string(::getpid());
}

void rename_into_place(int dirfd, const std::string& tmp, const std::string& name,
                       std::string_view dir_shown) {
  if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dirfd, tmp.c_str(), 0);
    throw Error::sys("rename", join_path(dir_shown, name), err);
  }
  // The rename is durable only once the directory itself is on disk.
  if (::fsync(dirfd) != 0 && errno != EINVAL) throw Error::sys("fsync", dir_shown, errno);
}
}  // namespace

void write_file_atomic(int dirfd, const std::string& name, std::string_view content, mode_t mode,
                       std::string_view dir_shown) {
  std::string tmp = temp_name(name);
  ::unlinkat(dirfd, tmp.c_str(), 0);  // left over by a crashed writer with our pid
  UniqueFd fd = open_at(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode,
                        join_path(dir_shown, tmp));
  try {
    write_all(fd.get(), content, join_path(dir_shown, tmp));
    if (::fchmod(fd.get(), mode) != 0) throw Error::sys("fchmod", join_path(dir_shown, tmp), errno);
    if (::fsync(fd.get()) != 0) throw Error::sys("fsync", join_path(dir_shown, tmp), errno);
  } catch (...) {
    ::unlinkat(dirfd, tmp.c_str(), 0);
    throw;
  }
  fd.reset();
  rename_into_place(dirfd, tmp, name, dir_shown);
}

void symlink_atomic(int dirfd, const std::string& name, const std::string& target,
                    std::string_view dir_shown) {
  std::string tmp = temp_name(name);
  ::unlinkat(dirfd, tmp.c_str(), 0);
  if (::symlinkat(target.c_str(), dirfd, tmp.c_str()) != 0)
    throw Error::sys("symlink", join_path(dir_shown, tmp), errno);
  rename_into_place(dirfd, tmp, name, dir_shown);
}

}  // namespace netns
