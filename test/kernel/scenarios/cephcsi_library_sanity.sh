# shellcheck shell=bash
# csi-sanity's differential for the library mode: kubernetes-csi's csi-sanity (as cephcsi_sanity)
# against the real, unmodified RBD plugin without a holder, then against the patched plugin
# (integrations/ceph-csi) with a socket-mode holder and config.json naming its <ID>.net.sock (no
# nsenter, no shim; an nsenter on the plugin's PATH fails its call). The specs that pass must be
# the same; the kernel's sessions are in the plugin's namespace in the first run, in the holder's
# and never the plugin's in the second, and a cephcsi log says a command ran in the socket's
# namespace.
# figure: kernel.cephcsi.library.sanity
# needs: ceph-mgr
# shellcheck source=../guest/cephcsi.sh
. "$KTEST_SRC/guest/cephcsi.sh"
ktest_csi_config monitors-only
ktest_plugin_start plugin storage
ktest_cephcsi_setup rbd
ktest_cephcsi_start
ktest_cephcsi_sanity without
ktest_holder_start with-socket-path
install -m 0644 "$KTEST_CONFIG" "$KTEST_CSI_CONFIG_PATH"
ktest_cephcsi_library
ktest_cephcsi_restart
ktest_cephcsi_sanity library
ktest_cephcsi_sanity_compare kernel.cephcsi.library.sanity without library
ktest_cephcsi_library_check
