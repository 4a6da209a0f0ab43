# shellcheck shell=bash
# kubernetes-csi's csi-sanity (v5.6.0), its Node Service and Controller Service specs, against the
# real ceph-csi RBD plugin (cephcsi v3.12.2, node and controller in one process, as the other
# ceph-csi scenarios) in the plugin pod with its own net1: first without a holder (config.json with
# the monitors only, no shim: ceph-csi's `rbd map` from the plugin's own namespace), then with one
# (the holder, the `rbd` shim first on the plugin's PATH, the plugin restarted into it). The specs
# that pass must be the same in both runs; those ceph-csi fails on its own are listed from the run
# without the holder. A sampler shows where the kernel's sessions were: in the plugin's namespace
# in the first run, only in the holder's in the second (ktest_cephcsi_sanity_compare).
# figure: kernel.cephcsi.sanity
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_csi_config monitors-only
ktest_plugin_start plugin storage
ktest_cephcsi_setup rbd
ktest_cephcsi_start
ktest_cephcsi_sanity without
ktest_holder_start monitors-only
ktest_shim_install
ktest_cephcsi_restart
ktest_cephcsi_sanity with
ktest_cephcsi_sanity_compare kernel.cephcsi.sanity without with
