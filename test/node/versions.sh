# shellcheck shell=bash
# Sourced by scripts/setup.d/kubernetes.sh and the node suite (test/node): the pinned Kubernetes
# and etcd releases of the real node, and where the set-up caches the binaries it builds (beside
# helm, kustomize and ceph-csi: test/csi/versions.sh).
#   NETNS_HELM_CACHE  the cache (default /var/cache/netns-holder, or ~/.cache/netns-holder)
NETNS_K8S_VERSION=v1.37.2
# k8s.io/kubernetes' go.mod replaces its staging modules (k8s.io/api, k8s.io/client-go, ...) with
# ./staging; built as a dependency they come from the proxy at the matching v0 release.
NETNS_K8S_STAGING_VERSION=v0.37.2
# etcd is in the same module graph (the apiserver's client): the server is built from it.
NETNS_ETCD_VERSION=v3.7.0
if [ -z "${NETNS_HELM_CACHE:-}" ]; then
  if [ -w /var/cache ] || [ -w /var/cache/netns-holder ]; then
    NETNS_HELM_CACHE=/var/cache/netns-holder
  else
    NETNS_HELM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/netns-holder
  fi
fi
NETNS_K8S_BIN_DIR=$NETNS_HELM_CACHE/kubernetes-$NETNS_K8S_VERSION
# What the node runs, each a binary in NETNS_K8S_BIN_DIR.
NETNS_K8S_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl etcd)
