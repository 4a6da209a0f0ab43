#pragma once
// Requests for the Ceph operation tests, in the shape ceph-csi sends them.
// Header-only: it needs the executor's Ceph types (netns_ceph), which the
// support library does not link; every test that includes it does.
#include "netns_exec/ceph/ceph.hpp"

namespace netns::test {

// An rbd map of rbd/csi-vol-1 with two monitors and a keyfile (no secret).
inline ceph::MapRequest map_request() {
  ceph::MapRequest r;
  r.pool = "rbd";
  r.image = "csi-vol-1";
  r.monitors = {"198.18.0.10:6789", "198.18.0.11:6789"};
  r.credentials.id = "csi-rbd-node";
  r.credentials.keyfile = "/tmp/keyfile-123";
  return r;
}

}  // namespace netns::test
