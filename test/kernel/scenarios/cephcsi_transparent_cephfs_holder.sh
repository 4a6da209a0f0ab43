# shellcheck shell=bash
# The real ceph-csi CephFS node plugin (cephcsi v3.12.2, unmodified) in transparent mode: config.json
# with the monitors only, netns-exec bound over mount(8)'s helper /sbin/mount.ceph, a holder for
# the cluster, the plugin pod with its own net1. The kubelet's calls over its CSI socket:
# NodeGetInfo, CreateVolume (a subvolume in the group csi, through the ceph-mgr), NodeStageVolume
# (ceph-csi's own `mount -t ceph MON:/volumes/csi/... STAGING -o name=admin,secretfile=...,
# mds_namespace=cephfs,_netdev`: the shim runs the real mount.ceph in the holder's namespace),
# NodePublishVolume; the workload on the published path across KTEST_CEPHCSI_RESTARTS plugin
# restarts; the file read back from Ceph's side (its objects copied first, since DeleteVolume
# purges them); NodeUnpublishVolume and NodeUnstageVolume through the restarted plugin,
# DeleteVolume. (ktest_cephcsi_cephfs_holder_run, guest/cephcsi.sh.)
# figure: kernel.cephcsi.transparent.cephfs.holder
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_holder_start monitors-only
ktest_plugin_start plugin storage
ktest_shim_install
ktest_cephcsi_setup cephfs
ktest_cephcsi_start
ktest_cephcsi_cephfs_holder_run kernel.cephcsi.transparent.cephfs.holder
