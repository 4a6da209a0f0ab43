# shellcheck shell=bash
# NFS control: the same NFSv4.1 hard mount made from the plugin's own namespace (net1 on storage,
# no holder), as the NFS CSI drivers do it. At the first plugin restart the namespace the client's
# connection lives in loses its interfaces and is deleted (sunrpc keeps it referenced, so the
# client stays, with no route): the workload must stall, for that reason and no other
# (ktest_control). nfsd still answers a fresh client (an NFSv4 NULL call over TCP to port 2049 from
# a new storage pod: no rpcbind on a v4-only server, so rpcinfo cannot ask; guest/targets.sh).
# Cleanup: `umount -f -l`, bounded, then the server stopped.
# figure: kernel.nfs.control
# shellcheck source=../guest/targets.sh
. "$KTEST_SRC/guest/targets.sh"
ktest_nfsd_up
ktest_plugin_start ctl storage
KTEST_NFS_MNT=/mnt/nfsctl
mkdir -p "$KTEST_NFS_MNT"
ktest_at_cleanup ktest_nfs_client_down
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 90 mount -t nfs4 -o "$(ktest_nfs_options)" "$KTEST_TARGET_IP:/export" "$KTEST_NFS_MNT"
[ -n "$(ss -N "$KTEST_PLUGIN_NS" -Htn state established "dport = :2049")" ] ||
  e2e_die "no NFS connection in the plugin's namespace $KTEST_PLUGIN_NS after mounting there"
e2e_log "mount -t nfs4 from the plugin's own namespace $KTEST_PLUGIN_NS: $(findmnt -n -o SOURCE,OPTIONS "$KTEST_NFS_MNT")"
ktest_workload_start nfsctl "$KTEST_NFS_MNT/data"
KTEST_CONTROL_PROBE=ktest__probe_nfs
KTEST_CONTROL_SERVER=server
ktest__probe_nfs() { nsenter --net="/run/netns/$1" -- timeout 30 python3 -c "$KTEST_NFS_NULL_CALL" "$KTEST_TARGET_IP"; }
ktest_control kernel.nfs.control nfsctl ktest_plugin_restart ctl storage
