// Which directories are holder directories (trust.hpp, "holder directory").
// Apart from trust.cpp so that the static holder, which never asks, does
// not carry it.
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/trust.hpp"
#include "netns/unique_fd.hpp"

namespace netns::trust {

namespace {
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto part : parts) out.append(part);
  return out;
}
}  // namespace

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

Finding record_required(std::string_view path, std::string_view dir_shown, bool holder_directory,
                        std::string_view example, std::string_view record_shown) {
  if (!holder_directory) {
    Finding f = pass(kHolderDirectory, quote(dir_shown) + " holds no holder files: not a holder directory");
    f.known = false;  // doctor's SKIP: the rule does not apply here
    return f;
  }
  if (!record_shown.empty())
    return fail(kHolderDirectory, Errc::not_found,
                cat({"open ", quote(record_shown), ": ", errno_text(ENOENT), ": ", quote(dir_shown),
                     " is a holder directory (it holds ", quote(example), "), and every namespace file in it, ",
                     quote(path), " too, must come with its cluster's record"}),
                "is the cluster's netns-holder pod running? name the holder's own <ID>.net.ns");
  return fail(kHolderDirectory, Errc::not_found,
              cat({quote(dir_shown), " is a holder directory (it holds ", quote(example), "), and ", quote(path),
                   " is not a holder's <ID>.net.ns: without a cluster ID no record can vouch for it"}),
              "name the holder's own <ID>.net.ns, or the cluster (--cluster-id and ceph-csi's config)");
}

}  // namespace netns::trust
