# shellcheck shell=bash
# Link flap under krbd through the holder (guest/faults.sh): an image mapped with `netns-exec map`
# from the plugin's pod, ext4 on it, the workload writing; 3 plugin restarts (the plugin's
# namespace gone), then the holder's storage interface (net1 in its namespace) down for
# KTEST_FLAP_KRBD_S and up again. The writes must resume within KTEST_FAULT_RESUME_S, with the
# kernel's sessions still in the holder's namespace (libceph reconnects in the namespace it keeps)
# and none in the node's; then the workload's data verified, `netns-exec unmap`, and the image
# read back from Ceph's side by the host. Measured: errors, resumed, the longest write+fsync.
# figure: kernel.fault.link_flap.krbd.holder
# shellcheck source=../guest/faults.sh
. "$KTEST_SRC/guest/faults.sh"
ktest_holder_start
ktest_plugin_start plugin
img=kf-$KTEST_TAG
ktest_rbd_create "$KTEST_PLUGIN_NS" "$img"
ktest_at_cleanup ktest_unmap_image_force "$img"
dev=$(ktest_map "$KTEST_PLUGIN_NS" "$img")
e2e_log "netns-exec map gave $dev"
ktest_ext4_mount "$dev" /mnt/flap
KTEST_FAULT_WORKLOAD=flap
ktest_workload_start flap /mnt/flap/data
ktest_restarts flap "$KTEST_FAULT_RESTARTS"
before=$(ss -N "$KTEST_HOLDER_NS" -Htn state established | wc -l)
[ "$before" -gt 0 ] || e2e_die "no established session in the holder's namespace $KTEST_HOLDER_NS before the flap"
kmsg=$(dmesg | wc -l)
ktest_flap "$KTEST_HOLDER_NS" net1 "$KTEST_FLAP_KRBD_S"
ktest_fault_resume flap "$KTEST_FAULT_RESUME_S"
echo "----- kernel messages since the flap -----"
ktest_kmsg_since "$kmsg"
[ "$KTEST_F_RESUMED" = yes ] ||
  e2e_die "krbd did not resume within ${KTEST_FAULT_RESUME_S}s of net1 coming back ($(ktest_writes flap) writes); ss there: $(ss -N "$KTEST_HOLDER_NS" -tan)"
holder_socks=$(ss -N "$KTEST_HOLDER_NS" -Htn state established | wc -l)
node_socks=$(ss -Htn state established | wc -l)
e2e_log "after the flap: $holder_socks established sessions in the holder's namespace ($before before), $node_socks in the node's"
[ "$holder_socks" -gt 0 ] && [ "$node_socks" -eq 0 ] ||
  e2e_die "after the flap the sessions are not (only) in the holder's namespace: holder $holder_socks, node $node_socks"
ktest_wait_writes flap 3 30 || e2e_die "writes stalled again after resuming"
ktest_workload_stop flap
[ "$KTEST_W_VERIFIED" = yes ] || e2e_die "the data read back does not match what was written"
umount /mnt/flap
ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$dev"
[ ! -e "$dev" ] || e2e_die "$dev still exists after netns-exec unmap"
ktest_expect_rbd_ext4 kernel.fault.link_flap.krbd.holder "$img" /data
e2e_log "link flap ${KTEST_FLAP_KRBD_S}s: resumed ${KTEST_F_RESUME_S}s after net1 came up"
echo "FIGURE kernel.fault.link_flap.krbd.holder: writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, resumed $KTEST_F_RESUMED, max_stall_ms $KTEST_W_STALL, down_s $KTEST_FLAP_KRBD_S, resume_s $KTEST_F_RESUME_S"
