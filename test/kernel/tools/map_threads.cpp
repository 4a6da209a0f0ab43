// Two library threads, one identical krbd map each, at the same moment, through the holder
// (ceph-csi's back-to-back requests): both must get the same device, and the kernel one mapping.
//   kernel_map_threads CLUSTER_ID CONFIG POOL IMAGE MON KEYFILE
// Prints one line per thread: "DEVICE already_done=0|1"; exit 0 when both succeeded
// with the same device.
#include <cstdio>
#include <string>
#include <thread>

#include "netns/error.hpp"
#include "netns_exec/ceph/ceph.hpp"
#include "netns_exec/source.hpp"

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s CLUSTER_ID CONFIG POOL IMAGE MON KEYFILE\n", argv[0]);
    return 2;
  }
  try {
    netns::exec::ResolvedNamespace ns =
        netns::exec::resolve(netns::exec::Source::cluster(argv[1], argv[2]));
    netns::ceph::MapRequest request;
    request.pool = argv[3];
    request.image = argv[4];
    request.monitors = {argv[5]};
    request.credentials.id = "admin";
    request.credentials.keyfile = argv[6];
    netns::ceph::Target target{.netns_fd = ns.fd.get(), .initial_netns = false};
    netns::ceph::OperationResult results[2];
    std::thread a([&] { results[0] = netns::ceph::default_runner().map(request, target); });
    std::thread b([&] { results[1] = netns::ceph::default_runner().map(request, target); });
    a.join();
    b.join();
    for (const auto& r : results) {
      if (!r.ok()) {
        std::fprintf(stderr, "map failed: %s\n", r.message.c_str());
        return 1;
      }
      std::printf("%s already_done=%d\n", r.device.c_str(), r.already_done ? 1 : 0);
    }
    return results[0].device == results[1].device ? 0 : 1;
  } catch (const netns::Error& e) {
    std::fprintf(stderr, "refused: %s\n", e.describe().c_str());
    return 125;
  }
}
