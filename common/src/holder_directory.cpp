// Which directories are holder directories (trust.hpp, "holder directory"),
// and the exemptions for a namespace file no record vouches for.
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
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

namespace {
// A namespace file no record vouches for and not named as a holder's link: a
// failure in a holder directory, whatever `allowed_by` says; anywhere else a
// failure naming the opt-in unless `allowed_by` names what allowed it.
Finding record_required(std::string_view path, std::string_view dir_shown, bool holder_directory,
                        std::string_view example, std::string_view record_shown,
                        std::string_view allowed_by) {
  if (holder_directory) {
    if (!record_shown.empty())
      return fail(kHolderDirectory, Errc::not_found,
                  "open " + quote(record_shown) + ": " + errno_text(ENOENT) + ": " +
                      quote(dir_shown) + " is a holder directory (it holds " + quote(example) +
                      "), and every namespace file in it, " + quote(path) +
                      " too, must come with its cluster's record",
                  "is the cluster's netns-holder pod running? name the holder's own <ID>.net.ns");
    return fail(
        kHolderDirectory, Errc::not_found,
        quote(dir_shown) + " is a holder directory (it holds " + quote(example) + "), and " +
            quote(path) +
            " is not a holder's <ID>.net.ns: without a cluster ID no record can vouch for it",
        "name the holder's own <ID>.net.ns, or the cluster (--cluster-id and ceph-csi's config)");
  }
  // Not a holder's file: a name under /run/netns, a /proc/PID/ns/net link,
  // anything else. Nothing vouches for it, so it is used only when asked for.
  if (!allowed_by.empty())
    return pass_with(kUnrecordedNetns, [&] {
      return quote(path) + ": no holder record vouches for it (" + quote(dir_shown) +
             " is not a holder directory); accepted with " + std::string(allowed_by);
    });
  std::string looked = record_shown.empty() ? std::string("it is not a holder's <ID>.net.ns")
                                            : "there is no " + quote(record_shown);
  return fail(
      kUnrecordedNetns, Errc::untrusted,
      "no holder record vouches for " + quote(path) + ": " + looked + ", and " + quote(dir_shown) +
          " is not a holder directory (no <ID>.holder.json or <ID>.lock in it), so nothing proves "
          "whose namespace it is or that its process is still the one meant",
      std::string(
          "name the holder's <ID>.net.ns (or its cluster), or, to use a namespace file no holder "
          "vouches for deliberately, opt in: ") +
          kUnrecordedOptIn);
}

}  // namespace

Finding record_exemption(const Unrecorded& u) {
  const bool required = u.identity == "require";
  if (u.holders_link) {
    // A holder's own link, next to which its record belongs.
    if (required)
      return fail(kRecordPresent, Errc::not_found,
                  "open " + quote(u.record_shown) + ": " + errno_text(ENOENT) +
                      ": a holder's link must come with its record",
                  "is the netns-holder pod running? a record-less (Rook-era) holder needs "
                  "netns-exec --identity if-present");
    Finding f = pass(kRecordPresent,
                     u.record_shown.empty()
                         ? "--identity " + std::string(u.identity)
                         : "no " + quote(u.record_shown) + " (" + std::string(u.identity) + ")");
    f.known = false;
    return f;
  }
  // Any other file: in a holder directory (never the kernel's /proc/PID/ns)
  // it needs its cluster's record; elsewhere an opt-in, or the kernel's word
  // that it is the caller's own namespace (--allow-own-netns: the holder's
  // own guard, `--netns /proc/self/ns/net`).
  std::string example;
  const bool holder_directory =
      required && !u.procfs && u.dirfd >= 0 && holds_holder_files(u.dirfd, &example);
  const char* allowed_by = u.opted_in ? "allow_unrecorded_netns"
                           : u.own_namespace
                               ? "allow_own_netns (it is this process's own namespace)"
                               : "";
  return record_required(u.path, u.dir_shown, holder_directory, example, u.record_shown,
                         allowed_by);
}

}  // namespace netns::trust
