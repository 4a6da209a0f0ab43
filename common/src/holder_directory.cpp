// Which directories are holder directories (trust.hpp, "holder directory").
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "netns/cluster_id.hpp"
#include "netns/trust.hpp"
#include "netns/unique_fd.hpp"

namespace netns::trust {

bool holds_holder_files(int dirfd, std::string* example) {
  UniqueFd dir(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return false;
  alignas(8) char buf[4096];
  // The whole directory (bounded: a million entries are read no further),
  // so that the name shown is always the same one: the first in byte order.
  std::string first;
  for (int batch = 0; batch < 4096; ++batch) {
    long n = ::syscall(SYS_getdents64, dir.get(), buf, sizeof buf);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      // glibc's dirent64 has the kernel's linux_dirent64 layout.
      const auto* d = reinterpret_cast<const struct dirent64*>(buf + at);
      at += d->d_reclen;
      std::string_view name(d->d_name);
      if ((!cluster_id_from_file_name(name, kRecordSuffix).empty() ||
           !cluster_id_from_file_name(name, kLockSuffix).empty()) &&
          (first.empty() || name < first))
        first = std::string(name);
    }
  }
  if (first.empty()) return false;
  if (example) *example = std::move(first);
  return true;
}

}  // namespace netns::trust
