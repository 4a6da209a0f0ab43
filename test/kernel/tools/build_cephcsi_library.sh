#!/usr/bin/env bash
# Builds the library mode's cephcsi for the kernel suite: ceph-csi's source as set-up keeps it
# (NETNS_CEPHCSI_SRC), the patch series integrations/ceph-csi applied by its build.sh, against
# this build's libnetns_exec (installed to a prefix in the build tree, linked statically).
# With Go's build cache warm (set-up's first build), seconds; cold, about 10 minutes on two cores.
#   build_cephcsi_library.sh BUILD_DIR SOURCE_DIR OUTPUT
set -euo pipefail
build=$1 src=$2 out=$3
# shellcheck source=../../csi/versions.sh
. "$src/test/csi/versions.sh"
. "$src/test/abi/find_go.sh"
[ -d "$NETNS_CEPHCSI_SRC" ] || { echo "build_cephcsi_library: no ceph-csi source at $NETNS_CEPHCSI_SRC: run sudo ./dev setup" >&2; exit 1; }
prefix=$build/test/kernel/cephcsi-library-prefix
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" --component netns_exec >/dev/null
GO=$go CEPHCSI_VERSION=$NETNS_CEPHCSI_VERSION CEPHCSI_COMMIT=$NETNS_CEPHCSI_COMMIT \
  bash "$src/integrations/ceph-csi/build.sh" "$NETNS_CEPHCSI_SRC" "$prefix" "$out"
