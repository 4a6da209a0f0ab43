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

if [ -x "$NETNS_KUSTOMIZE_BIN" ] && "$NETNS_KUSTOMIZE_BIN" version 2>/dev/null | grep -Fxq "$NETNS_KUSTOMIZE_VERSION"; then
  exit 0
fi
go=
for candidate in /usr/local/go/bin/go "$(command -v go || true)"; do
  if [ -z "$candidate" ] || [ ! -x "$candidate" ]; then continue; fi
  # kustomize v5.8.2 needs Go >= 1.26 (its go.mod); Debian's go 1.19 is too old.
  minor=$("$candidate" env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
  if [ -n "$minor" ] && [ "$minor" -ge 26 ]; then go=$candidate; break; fi
done
if [ -z "$go" ]; then
  echo "kustomize setup: no Go >= 1.26 to build kustomize $NETNS_KUSTOMIZE_VERSION (looked at /usr/local/go/bin/go and PATH); install Go" >&2
  exit 1
fi
mkdir -p "$(dirname "$NETNS_KUSTOMIZE_BIN")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "kustomize setup: building kustomize $NETNS_KUSTOMIZE_VERSION with $("$go" env GOVERSION) (a minute or two, once per machine)"
GOBIN=$work GOFLAGS=-mod=mod CGO_ENABLED=0 "$go" install \
  "sigs.k8s.io/kustomize/kustomize/v5@$NETNS_KUSTOMIZE_VERSION"
# Atomic: a concurrent run sees the old binary or the whole new one.
install -m 0755 "$work/kustomize" "$NETNS_KUSTOMIZE_BIN.tmp.$$"
mv -f "$NETNS_KUSTOMIZE_BIN.tmp.$$" "$NETNS_KUSTOMIZE_BIN"
"$NETNS_KUSTOMIZE_BIN" version
