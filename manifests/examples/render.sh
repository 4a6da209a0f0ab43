#!/usr/bin/env bash
# Renders the example manifests: three Ceph clusters, each served by an RBD
# and a CephFS holder, in symlink mode and in socket mode.
#   manifests/examples/render.sh [NETNS_MANIFEST [OUTDIR]]
# The committed files are this script's output; test/manifests checks that
# they are up to date (run it again after changing the generator).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gen=${1:-netns-manifest}
out=${2:-$here}
image=registry.example.com/netns-holder:0.1.0
plugin_image=registry.example.com/cephcsi-netns-exec:v3.14.0

# ID | monitors | Multus network for the holders ("" for none)
clusters=(
  "ceph-a|198.18.0.10:6789,198.18.0.11:6789,198.18.0.12:6789|ceph-csi/ceph-public"
  "ceph-b|198.18.1.10:3300|"
  "5f3c7a0e-9b1d-4c2e-8a6f-0d4b2c1e9f7a|198.18.2.10:6789,198.18.2.11:6789|storage/ceph-c-public"
)
drivers=(rbd.csi.ceph.com cephfs.csi.ceph.com)

for mode in symlink socket; do
  flags=()
  [ "$mode" = socket ] && flags+=(--socket)
  dir=$out/$mode
  mkdir -p "$dir/patches"
  config_args=()
  for entry in "${clusters[@]}"; do
    IFS='|' read -r id mons multus <<<"$entry"
    config_args+=(--cluster "$id=$mons")
    for driver in "${drivers[@]}"; do
      kind=${driver%%.*}
      extra=()
      [ -n "$multus" ] && extra+=(--multus "$multus")
      "$gen" holder --cluster-id "$id" --driver "$driver" --image "$image" \
        ${flags[@]+"${flags[@]}"} ${extra[@]+"${extra[@]}"} -o "$dir/holder-$kind-$id.yaml"
    done
  done
  "$gen" config "${config_args[@]}" ${flags[@]+"${flags[@]}"} -o "$dir/ceph-csi-config.yaml"
  for driver in "${drivers[@]}"; do
    kind=${driver%%.*}
    "$gen" plugin-patch --driver "$driver" --plugin-image "$plugin_image" \
      ${flags[@]+"${flags[@]}"} -o "$dir/patches/csi-${kind}plugin.yaml"
  done
done
