# shellcheck shell=bash
# Kernel CephFS in transparent mode: config.json with the monitors only, netns-exec bound over
# mount(8)'s helper /sbin/mount.ceph. ceph-csi's plain `mount -t ceph MONS:/ TARGET -o
# name=...,secretfile=...` from the plugin's pod namespace (no route to the storage network) runs
# the shim, which execs the real mount.ceph in the holder's namespace, chosen by the monitors of
# the source; a workload writes and fsyncs while the plugin restarts 10 times: 0 I/O errors, no
# write stall over 5 s, checksums verified, the file read back from Ceph's side; then `umount`.
# figure: kernel.transparent.cephfs.holder
ktest_holder_start monitors-only
ktest_plugin_start plugin
ktest_shim_install
mnt=/mnt/tcephfs
mkdir -p "$mnt"
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 90 mount -t ceph "$KTEST_CEPH_MON:/" "$mnt" \
  -o "name=admin,secretfile=$KTEST_KEYFILE"
e2e_track_mount "$KTEST_SCOPE" "$mnt"
grep -q " $mnt ceph " /proc/mounts || e2e_die "$mnt is not a ceph mount: $(grep ceph /proc/mounts)"
e2e_log "mount -t ceph through the mount.ceph shim: $(grep " $mnt " /proc/mounts | cut -d' ' -f1-3)"

ktest_workload_start tcephfs "$mnt/tcephfs-$KTEST_TAG"
ktest_holder_restarts tcephfs 10
ktest_expect_cephfs kernel.transparent.cephfs.holder "$mnt/tcephfs-$KTEST_TAG"
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 60 umount "$mnt"
! grep -q " $mnt " /proc/mounts || e2e_die "$mnt is still mounted after umount"
echo "FIGURE kernel.transparent.cephfs.holder: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED"
