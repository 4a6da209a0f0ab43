# shellcheck shell=bash
# Kernel CephFS control: the same mount made from the plugin's own namespace (net1 on storage).
# At the first plugin restart its I/O must stall, for that reason and no other (ktest_control), or
# the test fails. Cleanup: `umount -f`, bounded.
# figure: kernel.cephfs.control
ktest_plugin_start ctl storage
ns=$KTEST_PLUGIN_NS
mkdir -p /mnt/cctl
nsenter --net="/run/netns/$ns" -- timeout 90 mount -t ceph "$KTEST_CEPH_MON:/" /mnt/cctl \
  -o "name=admin,secretfile=$KTEST_KEYFILE"
e2e_log "mount -t ceph from the plugin's own namespace $ns: $(grep ' /mnt/cctl ' /proc/mounts | cut -d' ' -f1-3)"
ktest_workload_start cctl "/mnt/cctl/cctl-$KTEST_TAG"
ktest_control kernel.cephfs.control cctl ktest_plugin_restart ctl storage
ktest_bounded 20 "umount -f /mnt/cctl (then -l)" sh -c 'umount -f /mnt/cctl || umount -l /mnt/cctl'
