#!/usr/bin/env bash
# ctest wrapper: fails with the fix when the node modules are missing (helm:
# test/manifests/find-helm.sh says the fix when it is missing), then
# runs one node test file with node's own test runner.
#   run-node-test.sh NODE FILE.test.mjs
set -euo pipefail
node=$1 file=$2
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/kubernetes-models" ] || [ ! -d "$here/node_modules/yaml" ]; then
  echo "test/manifests/node_modules is missing: run scripts/setup.d/manifests.sh (or ./dev setup)" >&2
  exit 1
fi
cd "$here"
exec "$node" --test --test-reporter=tap "$file"
