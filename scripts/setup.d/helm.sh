#!/usr/bin/env bash
# helm for the chart tests (test/manifests): the one on PATH when there is one,
# else built once per machine from the Go module proxy at a pinned release into
# a stable cache directory, where the tests look for it (test/manifests/find-helm.sh).
#   NETNS_HELM_CACHE  where the built binary goes (default /var/cache/netns-holder,
#                     or ~/.cache/netns-holder when that is not writable)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../test/manifests/helm-version.sh
. "$here/test/manifests/helm-version.sh"

if command -v helm >/dev/null 2>&1; then
  exit 0
fi
if [ -x "$NETNS_HELM_BIN" ] && "$NETNS_HELM_BIN" version --short 2>/dev/null | grep -E "^${NETNS_HELM_VERSION}(\+|$)" >/dev/null; then
  exit 0
fi
# shellcheck source=../go-tool.sh
. "$here/scripts/go-tool.sh"
# helm $NETNS_HELM_VERSION needs Go >= 1.26 (its go.mod). The version is stamped
# as helm's release builds do (go install alone leaves "v3.21").
go_tool_install helm 26 "$NETNS_HELM_BIN" "helm.sh/helm/v3/cmd/helm@$NETNS_HELM_VERSION" \
  -ldflags "-X helm.sh/helm/v3/internal/version.version=$NETNS_HELM_VERSION"
"$NETNS_HELM_BIN" version --short
