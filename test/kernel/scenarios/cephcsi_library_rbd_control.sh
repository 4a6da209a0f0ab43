# shellcheck shell=bash
# cephcsi_library_rbd_holder's control: the same library-mode plugin (the patched cephcsi, no
# nsenter, no shim) with a config.json that names no netNamespaceFilePath, so that `rbd map` runs
# in the plugin's own namespace, as the series leaves an entry without one; the first restart
# stalls the mapping.
# figure: kernel.cephcsi.library.rbd.control
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_csi_config monitors-only
ktest_plugin_start plugin storage
ktest_cephcsi_library
ktest_cephcsi_setup rbd
ktest_cephcsi_start
ktest_cephcsi_volume_up
e2e_log "the library cephcsi staged rbd/$KTEST_CSI_IMAGE from the plugin's own namespace in ${KTEST_CSI_STAGE_MS} ms"
ktest_workload_start cclctl "$KTEST_CSI_TARGET/data"
ktest_control kernel.cephcsi.library.rbd.control cclctl ktest_cephcsi_restart
[ ! -e "$KTEST_W/nsenter-called" ] || e2e_die "cephcsi ran nsenter: $(cat "$KTEST_W/nsenter-called")"
