#!/usr/bin/env bash
# Builds csi-kubelet (test/csi/kubelet: the kubelet's CSI calls, for the kernel suite's ceph-csi
# scenarios) from the module cache, offline: ./dev setup (scripts/setup.d/cephcsi.sh) downloaded
# its modules (the CSI spec and gRPC) from the Go module proxy.
#   build_kubelet.sh SOURCE_DIR OUTPUT
set -euo pipefail
src=$1 out=$2
. "$src/test/abi/find_go.sh"
cd "$src/test/csi/kubelet"
if ! GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=readonly CGO_ENABLED=0 "$go" build -trimpath -o "$out.tmp" .; then
  echo "build_kubelet: cannot build test/csi/kubelet offline with $("$go" env GOVERSION) (it needs Go >= 1.25 and its modules: run ./dev setup)" >&2
  exit 1
fi
mv -f "$out.tmp" "$out"
