// ceph-csi's cluster config (a ConfigMap, JSON), through the executor's
// lookup_netns_path(). The input's first byte picks the section (rbd, cephFS,
// nfs); the rest is the file, handed over as /proc/self/fd/N of a memfd so
// the real read path runs without touching the disk. Properties: only
// netns::Error escapes (no nlohmann exception, no crash on deep nesting or
// odd types), and a returned path is no longer than the file.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "fuzz_target.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const netns::exec::ConfigKind kinds[] = {netns::exec::ConfigKind::rbd,
                                                  netns::exec::ConfigKind::cephfs,
                                                  netns::exec::ConfigKind::nfs};
  netns::exec::ConfigKind kind = kinds[data[0] % 3];
  std::string_view json = netns::fuzz::as_text(data + 1, size - 1);

  netns::UniqueFd file(::memfd_create("fuzz-csi-config", MFD_CLOEXEC));
  NETNS_FUZZ_CHECK(file.get() >= 0);
  NETNS_FUZZ_CHECK(::write(file.get(), json.data(), json.size()) == static_cast<ssize_t>(json.size()));
  const std::string path = "/proc/self/fd/" + std::to_string(file.get());
  return netns::fuzz::rejecting_errors([&] {
    std::string found = netns::exec::lookup_netns_path(path, "ceph-a", kind);
    NETNS_FUZZ_CHECK(found.size() <= json.size());
  });
}
