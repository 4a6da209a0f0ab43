# shellcheck shell=bash
# cephcsi_library_cephfs_holder's control: the same library-mode plugin with a config.json that
# names no netNamespaceFilePath, so that the kernel mount runs in the plugin's own namespace; the
# first restart stalls the mount.
# figure: kernel.cephcsi.library.cephfs.control
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_csi_config monitors-only
ktest_plugin_start plugin storage
ktest_cephcsi_library
ktest_cephcsi_setup cephfs
ktest_cephcsi_start
ktest_cephcsi_volume_up
e2e_log "the library cephcsi staged $(grep -F " $KTEST_CSI_STAGING " /proc/mounts | cut -d' ' -f1) from the plugin's own namespace in ${KTEST_CSI_STAGE_MS} ms"
ktest_at_cleanup ktest_bounded 20 "umount -f the published and the staging path (then -l)" \
  sh -c 'for m in "$1" "$2"; do umount -f "$m" || umount -l "$m"; done' - "$KTEST_CSI_TARGET" "$KTEST_CSI_STAGING"
ktest_workload_start cclfsctl "$KTEST_CSI_TARGET/data"
ktest_control kernel.cephcsi.library.cephfs.control cclfsctl ktest_cephcsi_restart
[ ! -e "$KTEST_W/nsenter-called" ] || e2e_die "cephcsi ran nsenter: $(cat "$KTEST_W/nsenter-called")"
