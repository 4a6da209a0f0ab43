# shellcheck shell=bash
# NFS through the holder: `netns-exec mount --type nfs` (NFSv4.1, hard, ceph-csi-like options)
# from the plugin's pod namespace (no route to storage), so the kernel NFS client's connection
# lives in the holder's namespace. A workload writes and fsyncs a file on the mount while the
# plugin restarts 10 times: 0 I/O errors, no write over 5 s, checksums verified; then `netns-exec
# umount`, and the exported file read directly on the server's side (guest/targets.sh).
# figure: kernel.nfs.holder
# shellcheck source=../guest/targets.sh
. "$KTEST_SRC/guest/targets.sh"
ktest_holder_start
ktest_plugin_start plugin
ktest_nfsd_up
link=$KTEST_HOLDER_DIR/$KTEST_CID.net.ns
KTEST_NFS_MNT=/mnt/nfs
mkdir -p "$KTEST_NFS_MNT"
ktest_at_cleanup ktest_nfs_client_down
ktest_exec "$KTEST_PLUGIN_NS" mount --netns "$link" --timeout 90s --type nfs --server "$KTEST_TARGET_IP" \
  --path /export -o "$(ktest_nfs_options)" "$KTEST_NFS_MNT"
findmnt -n -o FSTYPE,SOURCE,OPTIONS "$KTEST_NFS_MNT" || e2e_die "nothing mounted on $KTEST_NFS_MNT after netns-exec mount"
conns=$(ss -N "$KTEST_HOLDER_NS" -Htn state established "dport = :2049" | wc -l)
[ "$conns" -gt 0 ] || e2e_die "no NFS connection to $KTEST_TARGET_IP:2049 in the holder's namespace $KTEST_HOLDER_NS"
e2e_log "netns-exec mount --type nfs: $conns connection(s) to $KTEST_TARGET_IP:2049 in $KTEST_HOLDER_NS"
ktest_workload_start nfs "$KTEST_NFS_MNT/data"
ktest_holder_restarts nfs 10

ktest_exec "$KTEST_PLUGIN_NS" umount --netns "$link" --timeout 60s "$KTEST_NFS_MNT"
! ktest_mounted "$KTEST_NFS_MNT" || e2e_die "$KTEST_NFS_MNT still mounted after netns-exec umount"
ktest_expect_nfs_file data
[ "$KTEST_T_VERIFIED" = yes ] || e2e_die "the exported file does not hold what the workload wrote"
echo "FIGURE kernel.nfs.holder: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED, verified_from_target $KTEST_T_VERIFIED"
