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
if [ -x "$NETNS_HELM_BIN" ] && "$NETNS_HELM_BIN" version --short 2>/dev/null | grep -Eq "^${NETNS_HELM_VERSION}(\+|$)"; then
  exit 0
fi
go=
for candidate in /usr/local/go/bin/go "$(command -v go || true)"; do
  if [ -z "$candidate" ] || [ ! -x "$candidate" ]; then continue; fi
  # helm $NETNS_HELM_VERSION needs Go >= 1.26 (its go.mod); Debian's go 1.19 is too old.
  minor=$("$candidate" env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
  if [ -n "$minor" ] && [ "$minor" -ge 26 ]; then go=$candidate; break; fi
done
if [ -z "$go" ]; then
  echo "helm setup: no helm on PATH and no Go >= 1.26 to build $NETNS_HELM_VERSION (looked at /usr/local/go/bin/go and PATH); install helm or Go" >&2
  exit 1
fi
mkdir -p "$(dirname "$NETNS_HELM_BIN")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "helm setup: building helm $NETNS_HELM_VERSION with $("$go" env GOVERSION) (a few minutes, once per machine)"
# The version is stamped as helm's release builds do (go install alone leaves "v3.21").
GOBIN=$work GOFLAGS=-mod=mod CGO_ENABLED=0 "$go" install \
  -ldflags "-X helm.sh/helm/v3/internal/version.version=$NETNS_HELM_VERSION" \
  "helm.sh/helm/v3/cmd/helm@$NETNS_HELM_VERSION"
# Atomic: a concurrent run sees the old binary or the whole new one.
install -m 0755 "$work/helm" "$NETNS_HELM_BIN.tmp.$$"
mv -f "$NETNS_HELM_BIN.tmp.$$" "$NETNS_HELM_BIN"
"$NETNS_HELM_BIN" version --short
