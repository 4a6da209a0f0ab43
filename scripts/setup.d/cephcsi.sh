#!/usr/bin/env bash
# The real ceph-csi node plugin and kubernetes-csi's csi-sanity for the kernel suite's ceph-csi
# scenarios (test/kernel/README.md), built once per machine into the cache where helm is
# (test/csi/versions.sh). A second run costs nothing.
#   cephcsi: from ceph-csi's source at the pinned tag, with its own vendor/, against Debian's
#     librados/librbd/libcephfs (./dev installs the -dev packages). The source is
#     ../shared/upstream/ceph-csi-<tag>.tar.xz beside the checkout's folder when it exists (checked
#     against its sha256), else the tag's archive from GitHub; either is checked against the
#     content's digest (test/csi/content-digest.sh) and kept read-only in NETNS_CEPHCSI_SRC for the
#     library mode's build (integrations/ceph-csi, made by the build). About 10 minutes on two
#     cores with a cold Go cache.
#   csi-sanity: from the Go module proxy at the pinned release (a minute).
#   The modules of csi-kubelet, the suite's own CSI client, which the build compiles offline.
#   NETNS_HELM_CACHE  where the binaries go (see test/csi/versions.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../test/csi/versions.sh
. "$here/test/csi/versions.sh"

cephcsi_ok() {
  [ -x "$NETNS_CEPHCSI_BIN" ] && "$NETNS_CEPHCSI_BIN" -version 2>/dev/null | grep -Fx "Cephcsi Version: $NETNS_CEPHCSI_VERSION" >/dev/null
}

# The source is complete once the digest of its content is written beside it (last).
cephcsi_src_ok() {
  [ "$(cat "$NETNS_CEPHCSI_SRC.content-sha256" 2>/dev/null)" = "$NETNS_CEPHCSI_CONTENT_SHA256" ] && [ -d "$NETNS_CEPHCSI_SRC" ]
}

# Unpacks the pinned source into NETNS_CEPHCSI_SRC, checked, read-only: the unmodified build and
# the library mode's (integrations/ceph-csi/build.sh copies it) start from it.
fetch_cephcsi_src() {
  local work tarball sum digest
  mkdir -p "$(dirname "$NETNS_CEPHCSI_SRC")"
  work=$(mktemp -d "$NETNS_HELM_CACHE/.cephcsi-src.XXXXXX")
  # shellcheck disable=SC2064 # expand now: $work is local
  trap "rm -rf '$work'" EXIT
  mkdir "$work/src"
  tarball=$(dirname "$here")/shared/upstream/ceph-csi-$NETNS_CEPHCSI_VERSION.tar.xz
  if [ -f "$tarball" ]; then
    sum=$(sha256sum "$tarball" | cut -d' ' -f1)
    if [ "$sum" != "$NETNS_CEPHCSI_TARBALL_SHA256" ]; then
      echo "cephcsi setup: $tarball has sha256 $sum, not $NETNS_CEPHCSI_TARBALL_SHA256: refusing to build from it" >&2
      return 1
    fi
    tar -xJf "$tarball" -C "$work/src" --strip-components=1
  else
    local url=https://github.com/ceph/ceph-csi/archive/refs/tags/$NETNS_CEPHCSI_VERSION.tar.gz
    echo "cephcsi setup: no $tarball; downloading $url"
    curl -fsSL --retry 3 -o "$work/src.tar.gz" "$url" || {
      echo "cephcsi setup: cannot download $url (a machine without a source host needs $tarball)" >&2
      return 1
    }
    tar -xzf "$work/src.tar.gz" -C "$work/src" --strip-components=1
    rm -f "$work/src.tar.gz"
  fi
  digest=$("$here/test/csi/content-digest.sh" "$work/src")
  if [ "$digest" != "$NETNS_CEPHCSI_CONTENT_SHA256" ]; then
    echo "cephcsi setup: ceph-csi $NETNS_CEPHCSI_VERSION's source has digest $digest, not $NETNS_CEPHCSI_CONTENT_SHA256: refusing to build from it" >&2
    return 1
  fi
  chmod -R a-w "$work/src"
  if [ -e "$NETNS_CEPHCSI_SRC" ]; then chmod -R u+w "$NETNS_CEPHCSI_SRC" && rm -rf "$NETNS_CEPHCSI_SRC"; fi
  mv "$work/src" "$NETNS_CEPHCSI_SRC"
  echo "$digest" >"$NETNS_CEPHCSI_SRC.content-sha256"
  rm -rf "$work"
  trap - EXIT
}

build_cephcsi() {
  local go= candidate minor work
  # ceph-csi 3.12's go.mod says go 1.22.5; Debian's go 1.19 is too old.
  for candidate in /usr/local/go/bin/go "$(command -v go || true)"; do
    if [ -z "$candidate" ] || [ ! -x "$candidate" ]; then continue; fi
    minor=$("$candidate" env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
    if [ -n "$minor" ] && [ "$minor" -ge 22 ]; then go=$candidate; break; fi
  done
  if [ -z "$go" ]; then
    echo "cephcsi setup: no Go >= 1.22 to build ceph-csi $NETNS_CEPHCSI_VERSION (looked at /usr/local/go/bin/go and PATH); install Go" >&2
    return 1
  fi
  [ -e /usr/include/rbd/librbd.h ] && [ -e /usr/include/cephfs/libcephfs.h ] && [ -e /usr/include/rados/librados.h ] || {
    echo "cephcsi setup: Ceph's headers are missing (Debian: apt-get install librados-dev librbd-dev libcephfs-dev; ./dev setup does)" >&2
    return 1
  }
  echo "cephcsi setup: building ceph-csi $NETNS_CEPHCSI_VERSION from $NETNS_CEPHCSI_SRC with $("$go" env GOVERSION) (about 10 minutes on two cores, once per machine)"
  work=$(mktemp -d "$NETNS_HELM_CACHE/.cephcsi-build.XXXXXX")
  # shellcheck disable=SC2064 # expand now: $work is local
  trap "rm -rf '$work'" EXIT
  # As ceph-csi's own Makefile builds it: its vendor/, the tags of its build.env (squid; pacific's
  # tag lacks an API 3.12 calls, and go-ceph's squid code builds against Ceph 16's headers), the
  # version stamped. The Go build cache is the user's, so a rebuild takes minutes.
  (cd "$NETNS_CEPHCSI_SRC" && GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=1 "$go" build -mod vendor -tags=squid,ceph_preview \
    -ldflags "-X github.com/ceph/ceph-csi/internal/util.DriverVersion=$NETNS_CEPHCSI_VERSION -X github.com/ceph/ceph-csi/internal/util.GitCommit=$NETNS_CEPHCSI_COMMIT" \
    -o "$work/cephcsi" ./cmd/)
  # Atomic: a concurrent run sees the old binary or the whole new one.
  install -m 0755 "$work/cephcsi" "$NETNS_CEPHCSI_BIN.tmp.$$"
  mv -f "$NETNS_CEPHCSI_BIN.tmp.$$" "$NETNS_CEPHCSI_BIN"
  rm -rf "$work"
  trap - EXIT
}

csi_sanity_ok() {
  [ -x "$NETNS_CSI_SANITY_BIN" ] && "$NETNS_CSI_SANITY_BIN" -version 2>/dev/null | grep -Fx "Version = $NETNS_CSI_SANITY_VERSION" >/dev/null
}

cephcsi_src_ok || fetch_cephcsi_src
if ! cephcsi_ok; then
  build_cephcsi
  cephcsi_ok || { echo "cephcsi setup: $NETNS_CEPHCSI_BIN -version does not say $NETNS_CEPHCSI_VERSION" >&2; exit 1; }
  "$NETNS_CEPHCSI_BIN" -version | head -n1
fi
if ! csi_sanity_ok; then
  # shellcheck source=../go-tool.sh
  . "$here/scripts/go-tool.sh"
  # csi-test v5.6.0 needs Go >= 1.25 (its go.mod). The version is stamped as its Makefile does.
  go_tool_install csi-sanity 25 "$NETNS_CSI_SANITY_BIN" \
    "github.com/kubernetes-csi/csi-test/v5/cmd/csi-sanity@$NETNS_CSI_SANITY_VERSION" \
    -ldflags "-X main.VERSION=$NETNS_CSI_SANITY_VERSION"
  csi_sanity_ok || { echo "csi-sanity setup: $NETNS_CSI_SANITY_BIN -version does not say $NETNS_CSI_SANITY_VERSION" >&2; exit 1; }
fi
# csi-kubelet (test/csi/kubelet), the suite's own CSI client, is built by the build (offline, as
# every other part of it): its modules — the CSI spec, gRPC — come from the Go module proxy here.
. "$here/test/abi/find_go.sh"
(cd "$here/test/csi/kubelet" && GOTOOLCHAIN=local GOFLAGS=-mod=mod "$go" mod download) || {
  echo "csi-kubelet setup: go mod download in test/csi/kubelet failed (it needs the Go module proxy once)" >&2
  exit 1
}
