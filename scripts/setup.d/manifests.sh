#!/usr/bin/env bash
# Node modules for the manifest validation tests (test/manifests): installs
# exactly package-lock.json with `npm ci`, and only when it changed since the
# last install, so a second run costs nothing.
set -euo pipefail
dir=$(cd "$(dirname "$0")/../../test/manifests" && pwd)
if ! command -v npm >/dev/null 2>&1; then
  echo "manifests setup: npm not found; install Node.js 20 and npm (Debian: nodejs npm)" >&2
  exit 1
fi
stamp=$dir/node_modules/.netns-lock.sha256
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "manifests setup: npm ci in test/manifests"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
echo "$want" >"$stamp"
