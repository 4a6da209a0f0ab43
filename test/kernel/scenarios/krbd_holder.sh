# shellcheck shell=bash
# krbd through the holder: `netns-exec map` from the plugin's pod namespace maps the image in the
# holder's namespace (the real `rbd map`, with noudev); ext4 on /dev/rbdN, mounted; a workload
# writes and fsyncs a known data set while the plugin restarts 10 times. 0 I/O errors, no write
# stall over 5 s, checksums verified; then `netns-exec unmap`, and the image read back from
# Ceph's side by the host (ktest_expect_rbd_ext4).
# figure: kernel.krbd.holder
ktest_holder_start
ktest_plugin_start plugin
img=kimg-$KTEST_TAG
ktest_rbd_create "$KTEST_PLUGIN_NS" "$img"
dev=$(ktest_map "$KTEST_PLUGIN_NS" "$img")
e2e_log "netns-exec map gave $dev"
[ -b "$dev" ] || e2e_die "$dev is not a block device"
mkfs.ext4 -q "$dev"
mkdir -p /mnt/krbd
mount "$dev" /mnt/krbd
e2e_track_mount "$KTEST_SCOPE" /mnt/krbd

ktest_workload_start krbd /mnt/krbd/data
restarts=10
for r in $(seq 1 $restarts); do
  ktest_plugin_restart plugin
  ktest_wait_writes krbd 3 30 || e2e_die "writes stalled after plugin restart $r"
  e2e_log "restart $r: plugin namespace now $KTEST_PLUGIN_NS, $(ktest_writes krbd) writes"
done
ktest_workload_stop krbd
umount /mnt/krbd
[ "$KTEST_W_ERRORS" -eq 0 ] || e2e_die "$KTEST_W_ERRORS I/O errors"
[ "$KTEST_W_STALL" -le "$KTEST_HOLDER_STALL_MS" ] || e2e_die "a write stalled for $KTEST_W_STALL ms (limit $KTEST_HOLDER_STALL_MS)"
[ "$KTEST_W_VERIFIED" = yes ] || e2e_die "the data read back does not match what was written"

ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$dev"
[ ! -e "$dev" ] || e2e_die "$dev still exists after netns-exec unmap"
ktest_expect_rbd_ext4 kernel.krbd.holder "$img" /data
echo "FIGURE kernel.krbd.holder: restarts $restarts, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED"
