// ceph-csi's cluster config (a ConfigMap, JSON), through the decoder every
// reader of it uses (netns::exec::decode_ceph_csi_config: ceph-csi's own
// Go encoding/json rules). The input's first byte picks the kind (rbd,
// cephFS, nfs); the rest is the file. Properties: only netns::Error escapes
// (no crash, no stack overflow on deep nesting), decoding is deterministic,
// find() returns the first entry with the ID, and a decoded path is never
// longer than three bytes per input byte (U+FFFD for one bad byte).
// test/go-config compares the same decoder with encoding/json itself.
#include <string>

#include "fuzz_target.hpp"
#include "netns_exec/ceph_csi_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const netns::exec::ConfigKind kinds[] = {
      netns::exec::ConfigKind::rbd, netns::exec::ConfigKind::cephfs, netns::exec::ConfigKind::nfs};
  netns::exec::ConfigKind kind = kinds[data[0] % 3];
  std::string_view json = netns::fuzz::as_text(data + 1, size - 1);
  return netns::fuzz::rejecting_errors([&] {
    const auto config = netns::exec::decode_ceph_csi_config(json, "config.json");
    const auto again = netns::exec::decode_ceph_csi_config(json, "config.json");
    NETNS_FUZZ_CHECK(again.clusters.size() == config.clusters.size());
    for (size_t i = 0; i < config.clusters.size(); ++i) {
      const auto& c = config.clusters[i];
      NETNS_FUZZ_CHECK(c.netns_path(kind) == again.clusters[i].netns_path(kind));
      NETNS_FUZZ_CHECK(c.netns_path(kind).size() <= 3 * json.size());
      const auto* first = config.find(c.cluster_id);
      NETNS_FUZZ_CHECK(first != nullptr && first <= &c && first->cluster_id == c.cluster_id);
    }
  });
}
