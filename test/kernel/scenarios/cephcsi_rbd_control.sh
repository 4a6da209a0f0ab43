# shellcheck shell=bash
# The control of both RBD holder runs (cephcsi_transparent_rbd_holder, cephcsi_rbd_holder): the
# same real ceph-csi RBD plugin, the same pod with net1 on the storage network, the same calls,
# but no holder: config.json with the monitors only (no netNamespaceFilePath) and no netns-exec on
# the plugin's PATH, which is what either form is without a holder. ceph-csi's `rbd ... map` runs
# in the plugin's own namespace. At the first
# plugin restart (killed, CNI DEL, a new namespace, cephcsi started again and answering) the
# workload on the published path must stall, for that reason and no other (ktest_control).
# figure: kernel.cephcsi.rbd.control
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_csi_config monitors-only
ktest_plugin_start plugin storage
ktest_cephcsi_setup rbd
ktest_cephcsi_start
ktest_cephcsi_volume_up
e2e_log "ceph-csi staged rbd/$KTEST_CSI_IMAGE from the plugin's own namespace in ${KTEST_CSI_STAGE_MS} ms"
ktest_workload_start ccctl "$KTEST_CSI_TARGET/data"
ktest_control kernel.cephcsi.rbd.control ccctl ktest_cephcsi_restart
