# shellcheck shell=bash
# ceph-csi's CephFS node plugin built with the patch series (integrations/ceph-csi) and a
# socket-mode holder: config.json names the holder's <ID>.net.sock as cephFS.netNamespaceFilePath,
# and ceph-csi's `mount -t ceph ...` runs through the netnsexec library in the holder's namespace
# (mount(8) and the real /sbin/mount.ceph; no shim, and an nsenter on the plugin's PATH fails the
# stage). Otherwise as cephcsi_cephfs_holder: KTEST_CEPHCSI_RESTARTS restarts under the workload,
# the file read back from Ceph's side, NodeUnpublish/NodeUnstage through the restarted plugin.
# Its control is cephcsi_library_cephfs_control.
# figure: kernel.cephcsi.library.cephfs.holder
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_holder_start with-socket-path
ktest_plugin_start plugin storage
ktest_cephcsi_library
ktest_cephcsi_setup cephfs
ktest_cephcsi_start
ktest_cephcsi_cephfs_holder_run kernel.cephcsi.library.cephfs.holder
ktest_cephcsi_library_check
