#!/usr/bin/env bash
# Renders the example manifests from the chart: three Ceph clusters, each served
# by an RBD and a CephFS holder, in symlink mode and in socket mode
# (values/<mode>.yaml), plus the node plugin patches for plain-YAML ceph-csi.
#   manifests/examples/render.sh [HELM [OUTDIR]]
# The committed files are this script's output; test/manifests checks that
# they are up to date (run it again after changing the chart or the plugin).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
manifests=$(cd "$here/.." && pwd)
helm=${1:-helm}
out=${2:-$here}
plugin_image=registry.example.com/cephcsi-netns-exec:v3.14.0
# The plugin pod's own storage network (ceph-csi's in-process RADOS): the
# Multus networks of the values' clusters (ceph-b's pod network reaches it).
plugin_multus=ceph-csi/ceph-public,storage/ceph-c-public

for mode in symlink socket; do
  dir=$out/$mode
  mkdir -p "$dir/patches"
  {
    echo "# Rendered by manifests/examples/render.sh from values/$mode.yaml:"
    echo "#   helm template netns-holder manifests/chart/netns-holder --namespace ceph-csi -f manifests/examples/values/$mode.yaml"
    echo "# Do not edit by hand: change the values or the chart and run render.sh again."
    "$helm" template netns-holder "$manifests/chart/netns-holder" --namespace ceph-csi \
      -f "$here/values/$mode.yaml"
  } >"$dir/netns-holder.yaml"
  for kind in rbd cephfs; do
    {
      echo "# Rendered by manifests/examples/render.sh:"
      echo "#   manifests/plugin/render-patch --driver=$kind.csi.ceph.com --mode=$mode --plugin-image=$plugin_image \\"
      echo "#     --multus=$plugin_multus"
      NETNS_HELM=$helm "$manifests/plugin/render-patch" --driver="$kind.csi.ceph.com" --mode="$mode" \
        --plugin-image="$plugin_image" --multus="$plugin_multus"
    } >"$dir/patches/csi-${kind}plugin.yaml"
  done
done
