# shellcheck shell=bash
# Kernel CephFS through the holder: `netns-exec mount --type ceph` from the plugin's pod
# namespace mounts with the kernel client's sessions in the holder's namespace; a workload writes
# and fsyncs a known data set while the plugin restarts 10 times. 0 I/O errors, no write stall
# over 5 s, checksums verified; the file read back from Ceph's side by the host
# (ktest_expect_cephfs); then `netns-exec umount`.
# figure: kernel.cephfs.holder
ktest_holder_start
ktest_plugin_start plugin
mkdir -p /mnt/cephfs
ktest_mount_ceph "$KTEST_PLUGIN_NS" /mnt/cephfs
grep -q ' /mnt/cephfs ceph ' /proc/mounts || e2e_die "/mnt/cephfs is not a ceph mount: $(grep cephfs /proc/mounts)"
e2e_log "netns-exec mount --type ceph: $(grep ' /mnt/cephfs ' /proc/mounts | cut -d' ' -f1-3)"

ktest_workload_start cephfs "/mnt/cephfs/cephfs-$KTEST_TAG"
ktest_holder_restarts cephfs 10
ktest_expect_cephfs kernel.cephfs.holder "/mnt/cephfs/cephfs-$KTEST_TAG"
ktest_exec "$KTEST_PLUGIN_NS" umount --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --kind cephfs /mnt/cephfs
! grep -q ' /mnt/cephfs ' /proc/mounts || e2e_die "/mnt/cephfs is still mounted after netns-exec umount"
echo "FIGURE kernel.cephfs.holder: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED"
