# shellcheck shell=bash
# Benchmark (measured, never asserted): what staging and publishing a volume with the real ceph-csi
# RBD plugin (cephcsi v3.12.2) costs through the holder against the same plugin that maps from its
# own namespace. Two plugin pods, both with their own net1 (ceph-csi's RADOS needs it), each with
# its own cephcsi on its own socket and the same config.json (the monitors only):
#   own     no shim: ceph-csi's `rbd ... map` runs in the pod's own namespace (the control's layout);
#   holder  the `rbd` shim first on the plugin's PATH (transparent mode): the map runs in the
#           holder's namespace.
# KTEST_CEPHCSI_BENCH_PAIRS paired rounds, the order alternating within each pair, after one
# unpaired warm-up round of each arm; a round is the kubelet's NodeStageVolume then
# NodePublishVolume of the arm's own volume (CreateVolume'd once), timed as the two calls'
# latencies over the CSI socket (csi-kubelet's ms), then NodeUnpublish and NodeUnstage, untimed.
# Asserted: every call succeeded; after each stage the arm's kernel session is where it belongs
# (the holder arm's in the holder's namespace and none in its pod's; the own arm's in its pod's).
# In the same pairs, the shim's own start: `rbd --version` from the plugin's pod with the real rbd
# vs through the shim (untouched: it opens no session, so netns-exec starts, decides and execs the
# real rbd, no holder resolved). Figures: per-arm medians (ms) and the median of the per-pair
# ratios holder/own; the two startup medians.
# figure: kernel.cephcsi.bench
# figure: kernel.cephcsi.bench_startup
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
pairs=${KTEST_CEPHCSI_BENCH_PAIRS:-6}
ktest_holder_start monitors-only
ktest_cephcsi_setup rbd
# The own arm first: its cephcsi starts before the shim exists, so its PATH has the real rbd only.
ktest_plugin_start own storage
own_ns=$KTEST_PLUGIN_NS
ktest_cephcsi_pod own
ktest_cephcsi_start
ktest_shim_install
ktest_plugin_start plugin storage
ktest_cephcsi_pod plugin
ktest_cephcsi_start

# bench_paths ARM — the arm's volume file, staging and target paths (bench_vol, bench_staging,
# bench_target), and its pod's socket (ktest_cephcsi_pod).
bench_paths() {
  local pod=$1
  [ "$1" = holder ] && pod=plugin
  ktest_cephcsi_pod "$pod"
  bench_vol=$KTEST_W/bench-$1.json
  bench_staging=$KTEST_CSI_STAGING_ROOT/$KTEST_CSI_DRIVER/bench-$1/globalmount
  bench_target=/var/lib/kubelet/pods/bench-$1/volumes/kubernetes.io~csi/pvc-bench-$1/mount
}

# call_ms LINE — csi-kubelet's "CALL ok ms=N ..." line's N.
call_ms() { sed -n 's/^[a-z]* ok ms=\([0-9]*\).*/\1/p' <<<"$1"; }

for arm in own holder; do
  bench_paths "$arm"
  ktest_csi create -name "pvc-bench-$arm-$KTEST_TAG" -size-mib 64 -fstype ext4 -access single-node-writer \
    -param "clusterID=$KTEST_CID" -param pool=rbd -param imageFeatures=layering \
    -secrets "$KTEST_CSI_SECRETS" -volume "$bench_vol" >/dev/null || e2e_die "bench: CreateVolume ($arm) failed"
  ktest_at_cleanup ktest_unmap_image_force "$(jq -r '.volume_context.imageName' "$bench_vol")"
done

# bench_round ARM — one stage + publish (timed, in bench_ms) and its unpublish + unstage.
bench_round() {
  local arm=$1 stage publish
  bench_paths "$arm"
  stage=$(ktest_csi stage -volume "$bench_vol" -staging "$bench_staging" -secrets "$KTEST_CSI_SECRETS") ||
    e2e_die "bench: NodeStageVolume ($arm) failed: $stage; cephcsi: $(tail -n 20 "$KTEST_CSI_LOG")"
  publish=$(ktest_csi publish -volume "$bench_vol" -staging "$bench_staging" -target "$bench_target" \
    -secrets "$KTEST_CSI_SECRETS") || e2e_die "bench: NodePublishVolume ($arm) failed: $publish"
  bench_ms=$(($(call_ms "$stage") + $(call_ms "$publish")))
  case $arm in
    own) [ -n "$(ktest_kernel_sessions "$own_ns")" ] ||
      e2e_die "bench: no kernel session in the own arm's namespace after its stage" ;;
    holder)
      [ -n "$(ktest_kernel_sessions "$KTEST_HOLDER_NS")" ] ||
        e2e_die "bench: no kernel session in the holder's namespace after the holder arm's stage"
      [ -z "$(ktest_kernel_sessions "$KTEST_PLUGIN_NS")" ] ||
        e2e_die "bench: a kernel session in the plugin's namespace: the shim's map did not go through the holder" ;;
  esac
  ktest_csi unpublish -volume "$bench_vol" -target "$bench_target" >/dev/null || e2e_die "bench: NodeUnpublishVolume ($arm) failed"
  ktest_csi unstage -volume "$bench_vol" -staging "$bench_staging" >/dev/null || e2e_die "bench: NodeUnstageVolume ($arm) failed"
}

# bench_version real|shim — `rbd --version` from the plugin's pod (timed, in bench_ms),
# with the real rbd first on PATH or the shim.
bench_version() {
  local path=$KTEST_PLUGIN_PATH t0 t1 out
  [ "$1" = real ] || path=$KTEST_SHIM_DIR:$KTEST_PLUGIN_PATH
  ktest_cephcsi_pod plugin
  t0=$(date +%s%N)
  out=$(nsenter --net="/run/netns/$KTEST_PLUGIN_NS" -- env "PATH=$path" "NETNS_EXEC_CONFIG=$KTEST_CONFIG" \
    "NETNS_EXEC_HOLDER_DIR=$KTEST_HOLDER_DIR" "NETNS_EXEC_HELD_CLUSTERS=$KTEST_CID" "${KTEST_SHIM_ENV[@]}" \
    timeout 60 rbd --version) || e2e_die "bench: rbd --version ($1) failed: $out"
  t1=$(date +%s%N)
  [[ $out == "ceph version "* ]] || e2e_die "bench: rbd --version ($1) printed no version: $out"
  bench_ms=$(awk -v n="$((t1 - t0))" 'BEGIN { printf "%.1f", n / 1e6 }')
}

ktest_bench_pairs "$pairs" stage+publish "rbd --version"
for arm in own holder; do
  bench_paths "$arm"
  ktest_csi delete -volume "$bench_vol" -secrets "$KTEST_CSI_SECRETS" >/dev/null || e2e_die "bench: DeleteVolume ($arm) failed"
done

ktest_bench_figures kernel.cephcsi.bench
