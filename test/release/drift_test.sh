#!/usr/bin/env bash
# The control for version_test.sh: in a copy of the files it reads, with
# VERSION changed, it must fail and name every place that now disagrees.
#   drift_test.sh SOURCE_DIR NETNS_EXEC NETNS_HOLDER PC_DIR
set -euo pipefail
src=$1 exec_bin=$2 holder_bin=$3 pc_dir=$4
work=$(mktemp -d /tmp/netns-drift.XXXXXX)
trap 'rm -rf "$work"' EXIT
for f in VERSION CHANGELOG.md LICENSE NOTICE executor/go/netnsexec/version.go \
         executor/go/netnsexec/doc.go manifests/chart/netns-holder/Chart.yaml manifests/plugin/Chart.yaml; do
  mkdir -p "$work/$(dirname "$f")"
  cp "$src/$f" "$work/$f"
done
echo 99.0.0 >"$work/VERSION"
rc=0
out=$(bash "$src/test/release/version_test.sh" "$work" "$exec_bin" "$holder_bin" "$pc_dir" 2>&1) || rc=$?
echo "$out"
[ "$rc" -ne 0 ] || { echo "drift_test: version_test.sh passed with VERSION 99.0.0"; exit 1; }
missing=0
for place in "netns-exec --version" "netns-holder --version" "netns_exec.pc" "version.go" \
             "doc.go (package doc)" "netns-holder/Chart.yaml" "plugin/Chart.yaml" "CHANGELOG.md"; do
  grep -qF "$place" <<<"$out" || { echo "drift_test: not named: $place"; missing=1; }
done
exit "$missing"
