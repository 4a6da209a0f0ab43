#!/usr/bin/env bash
# Prints the helm the tests use: $NETNS_HELM, else helm on PATH, else the one
# scripts/setup.d/helm.sh built (at the pinned release). Fails with the fix.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${NETNS_HELM:-}" ]; then echo "$NETNS_HELM"; exit 0; fi
if command -v helm >/dev/null 2>&1; then command -v helm; exit 0; fi
# shellcheck source=helm-version.sh
. "$here/helm-version.sh"
if [ -x "$NETNS_HELM_BIN" ]; then echo "$NETNS_HELM_BIN"; exit 0; fi
echo "helm not found (not on PATH, not at $NETNS_HELM_BIN): run scripts/setup.d/helm.sh (or ./dev setup)" >&2
exit 1
