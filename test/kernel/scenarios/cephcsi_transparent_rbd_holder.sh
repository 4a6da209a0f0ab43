# shellcheck shell=bash
# The real ceph-csi RBD node plugin (cephcsi v3.12.2, unmodified) in transparent mode: its
# config.json names the monitors only, netns-exec is linked as `rbd` first on the plugin's PATH,
# and a holder runs for the cluster. The plugin pod has its own net1 on the storage network (its
# in-process RADOS needs it, as a Multus attachment gives it in the field). The kubelet's calls
# over its CSI socket (csi-kubelet): NodeGetInfo, CreateVolume, NodeStageVolume (ceph-csi's own
# `rbd --id admin -m MON --keyfile=... map rbd/IMG --device-type krbd --options noudev`, which the
# shim runs in the holder's namespace; ext4 made and mounted by ceph-csi), NodePublishVolume; a
# workload writes and fsyncs to the published path while the plugin restarts 3 times (killed, its
# pod namespace torn down as a CNI DEL does, a new one with a new net1, cephcsi started again and
# its NodeGetInfo answered): 0 I/O errors, no write over 5 s. Then NodeUnpublishVolume and
# NodeUnstageVolume through the restarted plugin (its umount and `rbd unmap`), nothing of the
# volume left on the node, the image copied inside the cluster for the host to read back from
# Ceph's side, DeleteVolume (a ceph-mgr task). (ktest_cephcsi_rbd_holder_run, guest/cephcsi.sh.)
# figure: kernel.cephcsi.transparent.rbd.holder
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_holder_start monitors-only
ktest_plugin_start plugin storage
ktest_shim_install
ktest_cephcsi_setup rbd
ktest_cephcsi_start
ktest_cephcsi_rbd_holder_run kernel.cephcsi.transparent.rbd.holder
