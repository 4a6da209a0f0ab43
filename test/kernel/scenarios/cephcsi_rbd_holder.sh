# shellcheck shell=bash
# The real ceph-csi RBD node plugin (cephcsi v3.12.2, unmodified) in the nsenter form: its
# config.json names the holder's link as the cluster's rbd.netNamespaceFilePath, and netns-exec is
# linked as `nsenter` first on the plugin's PATH, so ceph-csi's own `nsenter --net=LINK -- rbd ...
# map ...` is netns-exec's nsenter form (validated, then the real rbd in the holder's namespace).
# Otherwise as cephcsi_transparent_rbd_holder: the plugin pod with its own net1, the kubelet's
# calls, KTEST_CEPHCSI_RESTARTS (10) restarts under the workload, NodeUnpublish/NodeUnstage through
# the restarted plugin, the image read back from Ceph's side, DeleteVolume.
# Its control is cephcsi_rbd_control: without a holder the two forms are one layout (no
# netNamespaceFilePath, no netns-exec on the plugin's PATH).
# figure: kernel.cephcsi.rbd.holder
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_holder_start
ktest_plugin_start plugin storage
ktest_nsenter_install
ktest_cephcsi_setup rbd
ktest_cephcsi_start
ktest_cephcsi_rbd_holder_run kernel.cephcsi.rbd.holder
