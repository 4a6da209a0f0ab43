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
ktest_krbd_restarts krbd "$dev" 10

ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$dev"
[ ! -e "$dev" ] || e2e_die "$dev still exists after netns-exec unmap"
ktest_expect_rbd_ext4 kernel.krbd.holder "$img" /data
echo "FIGURE kernel.krbd.holder: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED"
