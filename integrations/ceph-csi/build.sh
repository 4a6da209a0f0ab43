#!/usr/bin/env bash
# Builds ceph-csi's cephcsi with this series applied: every netNamespaceFilePath command runs
# through the netnsexec library (README.md).
#   build.sh SRC_DIR LIB_PREFIX OUT
#   SRC_DIR     ceph-csi's source at the series' tag (v3.12.2), unmodified; it is not written to
#   LIB_PREFIX  libnetns_exec installed there (cmake --install BUILD --prefix LIB_PREFIX
#               --component netns_exec): include/, lib/libnetns_exec.a
#   OUT         the cephcsi binary to write
# The Go package comes from the checkout this script is in (executor/go), vendored the way
# `go mod vendor` would: the series' go.mod requires github.com/netns-holder/netns-holder/
# executor/go v0.0.0, replaced by ./third_party/netns-holder, and its vendor/modules.txt lists
# the package; this script copies the module there and the package into vendor/.
# libnetns_exec is linked statically: one file to put in the image, nothing for the dynamic
# loader to find, and the library's version is the one this checkout tested. The rest of cephcsi
# links as upstream's (librados, librbd, libcephfs from the image).
# -trimpath: the binary names no build directory, and Go's build cache is hit whatever directory
# the tree is copied to (a rebuild from a fresh checkout takes minutes, not the first build's 10).
# Environment: GO (default: /usr/local/go/bin/go, else go on PATH), CEPHCSI_VERSION and
# CEPHCSI_COMMIT (stamped as upstream's Makefile does), CEPHCSI_WORK (the build's directory;
# default OUT.build, removed at the end).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: build.sh SRC_DIR LIB_PREFIX OUT" >&2; exit 2; }
src=$1 prefix=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/../.." && pwd)
module=github.com/netns-holder/netns-holder/executor/go
go=${GO:-}
if [ -z "$go" ]; then
  if [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go; else go=$(command -v go); fi
fi
[ -f "$src/internal/util/cephcmds.go" ] || { echo "build.sh: $src is not ceph-csi's source" >&2; exit 1; }
[ -f "$prefix/lib/libnetns_exec.a" ] && [ -f "$prefix/include/netns_exec/netns_exec.h" ] ||
  { echo "build.sh: $prefix has no lib/libnetns_exec.a and include/netns_exec/netns_exec.h (cmake --install BUILD --prefix $prefix --component netns_exec)" >&2; exit 1; }
work=${CEPHCSI_WORK:-$out.build}
rm -rf "$work/src" "$work/pc"
mkdir -p "$work/src" "$work/pc"
cp -a "$src/." "$work/src/"
chmod -R u+w "$work/src"
cd "$work/src"
for p in "$here"/0*.patch; do
  patch -p1 --forward --quiet --no-backup-if-mismatch <"$p" ||
    { echo "build.sh: $(basename "$p") does not apply to $src" >&2; exit 1; }
done
# The module (go.mod and the package's sources, no tests) where the replace points, and the
# package where -mod vendor reads it.
mkdir -p third_party/netns-holder/netnsexec "vendor/$module/netnsexec"
cp "$checkout/executor/go/go.mod" third_party/netns-holder/
for f in "$checkout"/executor/go/netnsexec/*.go; do
  case $f in *_test.go) continue ;; esac
  cp "$f" third_party/netns-holder/netnsexec/
  cp "$f" "vendor/$module/netnsexec/"
done
# libnetns_exec.a alone, so that cgo's `#cgo pkg-config: netns_exec` links it statically.
cat >"$work/pc/netns_exec.pc" <<PC
Name: netns_exec
Description: netns-holder's libnetns_exec, static
Version: 0
Libs: -L$prefix/lib -l:libnetns_exec.a -lstdc++ -lm -pthread
Cflags: -I$prefix/include
PC
# As ceph-csi's Makefile builds it (scripts/setup.d/cephcsi.sh: the same tags and stamp).
PKG_CONFIG_PATH=$work/pc GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=1 "$go" build -mod vendor -trimpath \
  -tags=squid,ceph_preview \
  -ldflags "-X github.com/ceph/ceph-csi/internal/util.DriverVersion=${CEPHCSI_VERSION:-v3.12.2} -X github.com/ceph/ceph-csi/internal/util.GitCommit=${CEPHCSI_COMMIT:-unknown}" \
  -o "$out.tmp.$$" ./cmd/
mv -f "$out.tmp.$$" "$out"
cd /
rm -rf "$work"
