#!/usr/bin/env bash
# Prints the kustomize the tests use: $NETNS_KUSTOMIZE, else the one
# scripts/setup.d/kustomize.sh built (at the pinned release). Fails with the fix.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${NETNS_KUSTOMIZE:-}" ]; then echo "$NETNS_KUSTOMIZE"; exit 0; fi
# shellcheck source=kustomize-version.sh
. "$here/kustomize-version.sh"
if [ -x "$NETNS_KUSTOMIZE_BIN" ]; then echo "$NETNS_KUSTOMIZE_BIN"; exit 0; fi
echo "kustomize not found (not at $NETNS_KUSTOMIZE_BIN): run scripts/setup.d/kustomize.sh (or ./dev setup)" >&2
exit 1
