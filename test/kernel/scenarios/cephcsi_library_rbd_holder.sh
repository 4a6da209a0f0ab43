# shellcheck shell=bash
# ceph-csi's RBD node plugin built with the patch series (integrations/ceph-csi: cephcsi v3.12.2
# whose netNamespaceFilePath commands run through the netnsexec library, in-process) and a
# socket-mode holder: config.json names the holder's <ID>.net.sock as rbd.netNamespaceFilePath,
# the library asks the socket for the namespace's descriptor (no /proc/PID link, so no hostPID),
# proves it, and runs `rbd map` in it; no nsenter and no shim on the plugin's PATH (an nsenter
# there fails the stage). Otherwise as cephcsi_rbd_holder: the kubelet's calls,
# KTEST_CEPHCSI_RESTARTS restarts under the workload, NodeUnpublish/NodeUnstage through the
# restarted plugin, the image read back from Ceph's side, DeleteVolume. First, with the plugin up
# before the holder, NodeStageVolume must be refused with FailedPrecondition naming the socket,
# nothing mapped (ktest_cephcsi_library_refused); then the holder starts and the kubelet's retry
# stages.
# Its control is cephcsi_library_rbd_control (the same plugin, no holder).
# figure: kernel.cephcsi.library.rbd.holder
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_csi_config with-socket-path
ktest_plugin_start plugin storage
ktest_cephcsi_library
ktest_cephcsi_setup rbd
ktest_cephcsi_start
ktest_cephcsi_library_refused
ktest_holder_start with-socket-path
ktest_cephcsi_rbd_holder_run kernel.cephcsi.library.rbd.holder
ktest_cephcsi_library_check
