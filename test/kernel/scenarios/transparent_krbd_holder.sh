# shellcheck shell=bash
# krbd in transparent mode: the plugin's config.json names the monitors only (no
# netNamespaceFilePath) and netns-exec is linked as `rbd` first on the plugin's PATH. ceph-csi's own
# plain calls — `rbd --id ... -m MONS --keyfile=... create`, then `map` — reach the held cluster's
# holder by the monitors they name: the image is mapped from the holder's namespace (the plugin's
# has no route to the storage network, so a call the shim did not route fails). ext4 on the device;
# a workload writes and fsyncs while the plugin restarts 10 times: 0 I/O errors, no write stall over
# 5 s, checksums verified; plain `rbd unmap`, and the image read back from Ceph's side.
# figure: kernel.transparent.krbd.holder
ktest_holder_start monitors-only
ktest_plugin_start plugin
ktest_shim_install
img=ktimg-$KTEST_TAG
ktest_plain_rbd_create "$KTEST_PLUGIN_NS" "$img"
dev=$(ktest_plain_rbd_map "$KTEST_PLUGIN_NS" "$img")
e2e_log "plain rbd map through the shim gave $dev"
ktest_krbd_restarts tkrbd "$dev" 10

# Unmap names no monitors: the real rbd, untouched, from the (new) plugin namespace.
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 60 rbd unmap "$dev" --device-type krbd --options noudev
[ ! -e "$dev" ] || e2e_die "$dev still exists after rbd unmap"
ktest_expect_rbd_ext4 kernel.transparent.krbd.holder "$img" /data
echo "FIGURE kernel.transparent.krbd.holder: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED"
