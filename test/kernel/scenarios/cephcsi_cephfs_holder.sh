# shellcheck shell=bash
# The real ceph-csi CephFS node plugin (cephcsi v3.12.2, unmodified) in the nsenter form: its
# config.json names the holder's link as the cluster's cephFS.netNamespaceFilePath, and netns-exec
# is linked as `nsenter` first on the plugin's PATH, so ceph-csi's own `nsenter --net=LINK -- mount
# -t ceph MON:/volumes/csi/... STAGING -o name=...,secretfile=...,mds_namespace=...` is
# netns-exec's nsenter form (validated, then mount(8) and the real mount.ceph in the holder's
# namespace). Otherwise as cephcsi_transparent_cephfs_holder: the plugin pod with its own net1, the
# kubelet's calls, KTEST_CEPHCSI_RESTARTS (10) restarts under the workload, the file read back from
# Ceph's side, NodeUnpublish/NodeUnstage through the restarted plugin, DeleteVolume.
# Its control is cephcsi_cephfs_control (without a holder the two forms are one layout).
# figure: kernel.cephcsi.cephfs.holder
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_holder_start
ktest_plugin_start plugin storage
ktest_nsenter_install
ktest_cephcsi_setup cephfs
ktest_cephcsi_start
ktest_cephcsi_cephfs_holder_run kernel.cephcsi.cephfs.holder
