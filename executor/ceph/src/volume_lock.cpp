#include "volume_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/path.hpp"

namespace netns::ceph::detail {

namespace {

// FNV-1a: stable across builds and processes (std::hash is not promised to be).
uint64_t fnv1a(std::string_view text) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

std::string VolumeLock::file_name(std::string_view volume_key) {
  std::string name;
  for (char c : volume_key.substr(0, 100)) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '.';
    name += plain ? c : '_';
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(volume_key)));
  return name + "." + hash + ".lock";
}

VolumeLock VolumeLock::acquire(const std::string& dir, std::string_view volume_key) {
  VolumeLock lock;
  if (dir.empty()) return lock;
  // The parent (/run/netns-exec) first; both 0700: only root on the node takes these locks.
  const std::string parent = split_path(dir).first;
  for (const std::string& d : {parent, dir}) {
    if (d.empty()) continue;
    if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST)
      throw Error::sys("mkdir", d, errno,
                       "the per-volume lock directory must be creatable (Settings::lock_dir)");
  }
  const std::string path = join_path(dir, file_name(volume_key));
  lock.fd_ = open_fd(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
  while (::flock(lock.fd_.get(), LOCK_EX) != 0) {
    if (errno != EINTR) throw Error::sys("flock", path, errno);
  }
  return lock;
}

}  // namespace netns::ceph::detail
