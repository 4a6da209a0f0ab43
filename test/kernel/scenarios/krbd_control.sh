# shellcheck shell=bash
# krbd control: the same map made from the plugin's own namespace (net1 on storage, no holder),
# as ceph-csi does without a netNamespaceFilePath. At the first plugin restart the namespace the
# kernel client's sessions live in loses its interfaces and is deleted: the I/O must stall, for
# that reason and no other (ktest_control), or the test fails — it could not have caught a broken
# holder. Cleanup: `rbd unmap -o force`, bounded.
# figure: kernel.krbd.control
ktest_plugin_start ctl storage
ns=$KTEST_PLUGIN_NS
nsenter --net="/run/netns/$ns" -- timeout 60 rbd -c "$KTEST_CONF" --client-mount-timeout 10 create --size 64 rbd/kctl-$KTEST_TAG
dev=$(nsenter --net="/run/netns/$ns" -- timeout 90 rbd --id admin -m "$KTEST_CEPH_MON" --keyfile="$KTEST_KEYFILE" \
  map rbd/kctl-$KTEST_TAG --device-type krbd --options noudev)
e2e_log "rbd map from the plugin's own namespace $ns gave $dev"
mkfs.ext4 -q "$dev"
mkdir -p /mnt/kctl
mount "$dev" /mnt/kctl
ktest_workload_start kctl /mnt/kctl/data
ktest_control kernel.krbd.control kctl ktest_plugin_restart ctl storage
ktest_bounded 20 "rbd unmap -o force $dev" rbd unmap -o force "$dev"
