# shellcheck shell=bash
# NFS through the holder in transparent mode, as a CSI NFS node plugin mounts: netns-exec bound
# over mount(8)'s helper /usr/sbin/mount.nfs (so /sbin/mount.nfs4 and the unmount helpers, links
# to it, are the shim too) and NETNS_EXEC_TARGETS declaring the server's address as the holder's
# (ktest_target_shims_install). The plugin's plain `mount -t nfs4 -o OPTS SERVER:/export DIR`
# (NFSv4.1, hard, ceph-csi-like options) from its pod namespace (no route to storage) runs the
# shim, which execs the real mount.nfs4 in the holder's namespace, so the kernel NFS client's
# connection lives there. A workload writes and fsyncs a file on the mount while the plugin
# restarts 10 times: 0 I/O errors, no write over 5 s, checksums verified; then the plugin's plain
# `umount DIR` (umount.nfs4 through the shim, untouched: an unmount names no server), and the
# exported file read directly on the server's side (guest/targets.sh).
# figure: kernel.nfs.holder
# shellcheck source=../guest/targets.sh
. "$KTEST_SRC/guest/targets.sh"
ktest_holder_start
ktest_plugin_start plugin
ktest_nfsd_up
ktest_target_shims_install
KTEST_NFS_MNT=/mnt/nfs
mkdir -p "$KTEST_NFS_MNT"
ktest_at_cleanup ktest_nfs_client_down
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 90 mount -t nfs4 -o "$(ktest_nfs_options)" \
  "$KTEST_TARGET_IP:/export" "$KTEST_NFS_MNT"
findmnt -n -o FSTYPE,SOURCE,OPTIONS "$KTEST_NFS_MNT" || e2e_die "nothing mounted on $KTEST_NFS_MNT after mount -t nfs4"
conns=$(ss -N "$KTEST_HOLDER_NS" -Htn state established "dport = :2049" | wc -l)
[ "$conns" -gt 0 ] || e2e_die "no NFS connection to $KTEST_TARGET_IP:2049 in the holder's namespace $KTEST_HOLDER_NS"
[ -z "$(ss -N "$KTEST_PLUGIN_NS" -Htan "dport = :2049")" ] ||
  e2e_die "NFS sockets in the plugin's namespace $KTEST_PLUGIN_NS: the mount did not go through the holder"
e2e_log "mount -t nfs4 through the mount.nfs4 shim: $conns connection(s) to $KTEST_TARGET_IP:2049 in $KTEST_HOLDER_NS"
ktest_workload_start nfs "$KTEST_NFS_MNT/data"
ktest_holder_restarts nfs 10

ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 60 umount "$KTEST_NFS_MNT"
! ktest_mounted "$KTEST_NFS_MNT" || e2e_die "$KTEST_NFS_MNT still mounted after umount (the umount.nfs4 shim)"
ktest_expect_nfs_file data
[ "$KTEST_T_VERIFIED" = yes ] || e2e_die "the exported file does not hold what the workload wrote"
echo "FIGURE kernel.nfs.holder: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED, verified_from_target $KTEST_T_VERIFIED"
