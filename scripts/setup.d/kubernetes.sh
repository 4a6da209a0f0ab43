#!/usr/bin/env bash
# The real Kubernetes node of the node suite (test/node): kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet, kubectl and etcd at the pinned releases (test/node/versions.sh), built
# once per machine from the Go module proxy into the cache where helm is; only the binaries are
# kept. About 30 CPU-minutes (15-20 minutes on two idle cores) with a cold Go cache; a second run
# costs nothing. containerd and the CNI plugins are Debian's (./dev installs them).
#   NETNS_HELM_CACHE  where the binaries go (see test/node/versions.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../test/node/versions.sh
. "$here/test/node/versions.sh"

k8s_ok() {
  local b
  for b in "${NETNS_K8S_BINARIES[@]}"; do [ -x "$NETNS_K8S_BIN_DIR/$b" ] || return 1; done
  "$NETNS_K8S_BIN_DIR/kubectl" version --client 2>/dev/null | grep -Fx "Client Version: $NETNS_K8S_VERSION" >/dev/null
}
k8s_ok && exit 0

. "$here/test/abi/find_go.sh"
minor=$("$go" env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
if [ -z "$minor" ] || [ "$minor" -lt 26 ]; then
  echo "kubernetes setup: Kubernetes $NETNS_K8S_VERSION needs Go >= 1.26 (its go.mod); $go is $("$go" env GOVERSION)" >&2
  exit 1
fi
mkdir -p "$NETNS_K8S_BIN_DIR"
work=$(mktemp -d "$NETNS_HELM_CACHE/.kubernetes-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "kubernetes setup: building Kubernetes $NETNS_K8S_VERSION and etcd $NETNS_ETCD_VERSION with $("$go" env GOVERSION) (about 30 CPU-minutes, once per machine)"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
# k8s.io/kubernetes refuses `go install ...@version` (its go.mod replaces the staging modules with
# ./staging): a wrapper module requires it and points each staging module at its published release.
cd "$work"
cat >go.mod <<MOD
module netns-holder.test/node

go 1.26.0

require k8s.io/kubernetes $NETNS_K8S_VERSION
MOD
gomod=$("$go" mod download -json "k8s.io/kubernetes@$NETNS_K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
sed -n 's|^[[:space:]]*\(k8s\.io/[a-z-]*\) => \./staging/.*$|\1|p' "$gomod" | while read -r m; do
  echo "replace $m => $m $NETNS_K8S_STAGING_VERSION"
done >>go.mod
mkdir etcd
cat >etcd/main.go <<'GO'
// The etcd server, from the version in Kubernetes' module graph.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "k8s.io/kubectl/pkg/cmd"
	_ "go.etcd.io/etcd/server/v3/etcdmain"
)
GO
"$go" mod tidy
etcd_v=$("$go" list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
if [ "$etcd_v" != "$NETNS_ETCD_VERSION" ]; then
  echo "kubernetes setup: Kubernetes $NETNS_K8S_VERSION's module graph has etcd $etcd_v, not $NETNS_ETCD_VERSION (test/node/versions.sh)" >&2
  exit 1
fi
# The version the binaries report (helm and the kubelet read it), as Kubernetes' release build stamps it.
major=${NETNS_K8S_VERSION#v}; major=${major%%.*}
minor_v=${NETNS_K8S_VERSION#v*.}; minor_v=${minor_v%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$NETNS_K8S_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor_v"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit=$NETNS_K8S_VERSION"
done
mkdir out
"$go" build -trimpath -ldflags "$ldflags" -o out/ \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl
"$go" build -trimpath -ldflags "-s -w" -o out/etcd ./etcd
for b in "${NETNS_K8S_BINARIES[@]}"; do
  # Atomic: a concurrent run sees the old binary or the whole new one.
  install -m 0755 "out/$b" "$NETNS_K8S_BIN_DIR/$b.tmp.$$"
  mv -f "$NETNS_K8S_BIN_DIR/$b.tmp.$$" "$NETNS_K8S_BIN_DIR/$b"
done
k8s_ok || { echo "kubernetes setup: $NETNS_K8S_BIN_DIR/kubectl does not say $NETNS_K8S_VERSION" >&2; exit 1; }
"$NETNS_K8S_BIN_DIR/kubectl" version --client
