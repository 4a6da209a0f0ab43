# shellcheck shell=bash
# The control of both CephFS holder runs (cephcsi_transparent_cephfs_holder, cephcsi_cephfs_holder):
# the same real ceph-csi CephFS plugin, pod with net1 and calls, but no holder: config.json with the
# monitors only, no shim and no netns-exec as nsenter, which is what either form is without a
# holder. ceph-csi's `mount -t ceph` runs in the plugin's own namespace. At the first plugin restart the workload on the
# published path must stall, for that reason and no other (ktest_control). Cleanup: `umount -f`
# of both paths, bounded.
# figure: kernel.cephcsi.cephfs.control
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_csi_config monitors-only
ktest_plugin_start plugin storage
ktest_cephcsi_setup cephfs
ktest_cephcsi_start
ktest_cephcsi_volume_up
e2e_log "ceph-csi staged $(grep -F " $KTEST_CSI_STAGING " /proc/mounts | cut -d' ' -f1) from the plugin's own namespace in ${KTEST_CSI_STAGE_MS} ms"
ktest_at_cleanup ktest_bounded 20 "umount -f the published and the staging path (then -l)" \
  sh -c 'for m in "$1" "$2"; do umount -f "$m" || umount -l "$m"; done' - "$KTEST_CSI_TARGET" "$KTEST_CSI_STAGING"
ktest_workload_start ccfsctl "$KTEST_CSI_TARGET/data"
ktest_control kernel.cephcsi.cephfs.control ccfsctl ktest_cephcsi_restart
