#!/usr/bin/env bash
# kustomize for the Kustomize component tests (test/manifests): built once per
# machine from the Go module proxy at a pinned release into the cache where
# helm is (test/manifests/kustomize-version.sh), where the tests look for it
# (test/manifests/find-kustomize.sh). A kustomize on PATH is not used: the
# tests pin the release whose behaviour they assert (Flux and Argo CD embed
# kustomize v5 too).
#   NETNS_HELM_CACHE  where the built binary goes (see helm-version.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../test/manifests/kustomize-version.sh
. "$here/test/manifests/kustomize-version.sh"

if [ -x "$NETNS_KUSTOMIZE_BIN" ] && "$NETNS_KUSTOMIZE_BIN" version 2>/dev/null | grep -Fx "$NETNS_KUSTOMIZE_VERSION" >/dev/null; then
  exit 0
fi
# shellcheck source=../go-tool.sh
. "$here/scripts/go-tool.sh"
# kustomize v5.8.2 needs Go >= 1.26 (its go.mod).
go_tool_install kustomize 26 "$NETNS_KUSTOMIZE_BIN" "sigs.k8s.io/kustomize/kustomize/v5@$NETNS_KUSTOMIZE_VERSION"
"$NETNS_KUSTOMIZE_BIN" version
