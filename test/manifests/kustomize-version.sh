# shellcheck shell=bash
# Sourced by scripts/setup.d/kustomize.sh and test/manifests/find-kustomize.sh:
# the pinned kustomize release and where the set-up puts it when it is built
# (the cache helm-version.sh chooses, so helm and kustomize sit side by side).
here_kv=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=helm-version.sh
. "$here_kv/helm-version.sh"
# v5.8.3 needs Go 1.27; v5.8.2 builds with the Go 1.26 helm needs too.
NETNS_KUSTOMIZE_VERSION=v5.8.2
NETNS_KUSTOMIZE_BIN=$NETNS_HELM_CACHE/kustomize-$NETNS_KUSTOMIZE_VERSION/kustomize
