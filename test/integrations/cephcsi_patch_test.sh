#!/usr/bin/env bash
# The ceph-csi patch series (integrations/ceph-csi) applies to the pinned tag's source as set-up
# keeps it (NETNS_CEPHCSI_SRC, test/csi/versions.sh), every patch in order and without fuzz or
# offset; and its size as an upstream reviewer sees it: files and lines changed outside vendor/.
# Skips (77) on a machine whose set-up did not keep the source.
#   cephcsi_patch_test.sh SOURCE_DIR
set -euo pipefail
src=$1
# shellcheck source=../csi/versions.sh
. "$src/test/csi/versions.sh"
[ -d "$NETNS_CEPHCSI_SRC" ] || { echo "SKIP: no ceph-csi source at $NETNS_CEPHCSI_SRC (sudo ./dev setup keeps it)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -a "$NETNS_CEPHCSI_SRC/." "$work/tree"
chmod -R u+w "$work/tree"
files=0 added=0 removed=0 patches=0
for p in "$src"/integrations/ceph-csi/0*.patch; do
  patches=$((patches + 1))
  # --fuzz=0 and no offset: a patch that only applies by moving is one that stopped applying.
  out=$(patch -d "$work/tree" -p1 --forward --fuzz=0 --no-backup-if-mismatch <"$p" 2>&1) ||
    { echo "FAIL: $(basename "$p") does not apply to ceph-csi $NETNS_CEPHCSI_VERSION: $out"; exit 1; }
  if grep -E 'offset|fuzz' <<<"$out"; then
    echo "FAIL: $(basename "$p") applies to ceph-csi $NETNS_CEPHCSI_VERSION only by moving: $out"
    exit 1
  fi
  # The diffstat outside vendor/: +/- lines of each file's hunks.
  read -r f a r < <(awk '
    /^diff --git / { indiff = 1; inv = ($3 ~ /^a\/vendor\//); if (!inv) files++; next }
    /^-- $/ { exit }
    !indiff { next }
    /^(\+\+\+|---) / { next }
    /^\+/ { if (!inv) add++ } /^-/ { if (!inv) del++ }
    END { print files + 0, add + 0, del + 0 }' "$p")
  files=$((files + f)) added=$((added + a)) removed=$((removed + r))
done
[ "$patches" -gt 0 ] || { echo "FAIL: no patch in $src/integrations/ceph-csi"; exit 1; }
# What the series promises: no nsenter left in the command path, netnsexec called.
grep -q 'netnsexec.CommandContext' "$work/tree/internal/util/cephcmds.go" ||
  { echo "FAIL: the patched cephcmds.go does not call netnsexec"; exit 1; }
if grep -n '"nsenter"' "$work/tree/internal/util/cephcmds.go"; then
  echo "FAIL: the patched cephcmds.go still runs nsenter"
  exit 1
fi
echo "FIGURE integrations.cephcsi.patch: applies $NETNS_CEPHCSI_VERSION yes, patches $patches, files $files, lines +$added -$removed (outside vendor/)"
