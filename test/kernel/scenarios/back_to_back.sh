# shellcheck shell=bash
# Back-to-back identical requests (ceph-csi retrying a NodeStage while the first call still
# runs): two separate `netns-exec map` processes for the same image at the same moment give one
# mapping and the same device to both, and so do two library threads; two `netns-exec mount` of
# the same target, one mount.
# Per-volume serialization must work across processes (an flock per volume on the node).
ktest_holder_start
ktest_plugin_start plugin
ns=$KTEST_PLUGIN_NS
img=kb-$KTEST_TAG
ktest_rbd_create "$ns" "$img"

ktest_map "$ns" "$img" >"$KTEST_W/map1" 2>"$KTEST_W/map1.err" &
p1=$!
ktest_map "$ns" "$img" >"$KTEST_W/map2" 2>"$KTEST_W/map2.err" &
p2=$!
rc1=0 rc2=0
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
cat "$KTEST_W"/map1* "$KTEST_W"/map2*
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] || e2e_die "the maps exited $rc1 and $rc2"
d1=$(cat "$KTEST_W/map1") d2=$(cat "$KTEST_W/map2")
[ "$d1" = "$d2" ] || e2e_die "two identical maps gave two devices: $d1 and $d2"
n=$(grep -lx "$img" /sys/bus/rbd/devices/*/name | wc -l)
[ "$n" -eq 1 ] || e2e_die "$n mappings of $img, expected 1"
e2e_log "two netns-exec map processes at once: one mapping, $d1 for both"

e2e_log "two library threads at once (one process, as a Go plugin using the C ABI; the volume lock serializes them)"
img2=kt-$KTEST_TAG
ktest_rbd_create "$ns" "$img2"
nsenter --net="/run/netns/$ns" -- "$KTEST_MAP_THREADS_BIN" "$KTEST_CID" "$KTEST_CONFIG" rbd "$img2" \
  "$KTEST_CEPH_MON" "$KTEST_KEYFILE" >"$KTEST_W/threads" || e2e_die "the library threads' maps failed"
cat "$KTEST_W/threads"
[ "$(cut -d' ' -f1 "$KTEST_W/threads" | sort -u | wc -l)" -eq 1 ] || e2e_die "two threads got two devices"
n=$(grep -lx "$img2" /sys/bus/rbd/devices/*/name | wc -l)
[ "$n" -eq 1 ] || e2e_die "$n mappings of $img2 from two threads, expected 1"
t_dev=$(head -n 1 "$KTEST_W/threads" | cut -d' ' -f1)
e2e_log "two library threads at once: one mapping, $t_dev for both"

mkdir -p /mnt/kb
ktest_mount_ceph "$ns" /mnt/kb >"$KTEST_W/mount1" 2>&1 &
p1=$!
ktest_mount_ceph "$ns" /mnt/kb >"$KTEST_W/mount2" 2>&1 &
p2=$!
rc1=0 rc2=0
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
cat "$KTEST_W"/mount1 "$KTEST_W"/mount2
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] || e2e_die "the mounts exited $rc1 and $rc2"
n=$(grep -c ' /mnt/kb ceph ' /proc/mounts)
[ "$n" -eq 1 ] || e2e_die "$n ceph mounts on /mnt/kb, expected 1"
e2e_log "two netns-exec mount processes at once: one mount"

ktest_exec "$ns" umount --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --kind cephfs /mnt/kb
ktest_exec "$ns" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$d1"
ktest_exec "$ns" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$t_dev"
[ ! -e "$d1" ] || e2e_die "$d1 still exists after netns-exec unmap"
