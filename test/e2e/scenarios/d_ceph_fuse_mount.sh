# shellcheck shell=bash
# d. ceph-fuse mounted through the executor from the plugin (`netns-exec mount --type ceph-fuse`):
#    the daemon runs in the holder's namespace (the plugin has its own storage interface, so a
#    working mount alone proves nothing), the mount is visible in the host's mount namespace
#    (the plugin's kubelet volume is Bidirectional and the executor changes no namespace but the
#    network one), and it reads back what was written, from either side; a second CephFS client
#    (its own ceph-fuse, from the cluster's namespace) reads the same bytes from Ceph.
e2e_require_holder
e2e_require_exec mount
e2e_require_exec umount

cid=d-c1
cfg=$E2E_RUN/csi/d/config.json
conf=$E2E_RUN/c1/ceph.conf
holder=$E2E_ID-d-holder
plugin=$E2E_ID-d-plugin
pod_dir=$E2E_KUBELET/pods/d-pod
target=$pod_dir/volumes/kubernetes.io~csi/pvc-d/mount
mkdir -p "$target"

e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
e2e_csi_config "$cfg" "$cid" c1 "$E2E_HOLDER_DIR/$cid.net.ns"
e2e_plugin_start "$E2E_SCOPE" "$plugin"

e2e_section "netns-exec mount --type ceph-fuse, from the plugin pod"
e2e_track_mount "$E2E_SCOPE" "$target"
# ceph-fuse daemonizes; CEPH_ARGS gives it a pid file (a host pid: the plugin is hostPID) so the
# scenario can check where its sessions live.
e2e_pod_exec "$plugin" env CEPH_ARGS="--pid-file $pod_dir/ceph-fuse.pid" \
  "$E2E_PLUGIN_EXEC" mount --cluster-id "$cid" --config "$cfg" --kind cephfs --timeout 60s \
  --type ceph-fuse --ceph-conf "$conf" --mon "$(e2e_cluster_var c1 E2E_CEPH_MON)" \
  --id admin --keyfile "$E2E_RUN/c1/admin.key" --fs cephfs "$target"
fuse_pid=$(e2e_pid_from_file "$pod_dir/ceph-fuse.pid" 10) || e2e_die "ceph-fuse wrote no pid file"
e2e_track_pid "$E2E_SCOPE" ceph-fuse "$fuse_pid"
[ "$(e2e_ns_id "/proc/$fuse_pid/ns/net")" = "$(e2e_ns_id "/run/netns/$E2E_HOLDER_NS")" ] ||
  e2e_die "ceph-fuse (pid $fuse_pid) is not in the holder's network namespace"
e2e_log "ceph-fuse pid $fuse_pid runs in the holder's network namespace"

e2e_section "the mount, seen from the host's mount namespace"
grep " $target " /proc/self/mountinfo || e2e_die "the ceph-fuse mount is not visible on the host at $target"

token="written by the plugin at $(date -u +%FT%T.%N)"
e2e_pod_exec "$plugin" sh -c "echo '$token' >'$target/from-plugin'"
[ "$(cat "$target/from-plugin")" = "$token" ] || e2e_die "the host does not read back what the plugin wrote"
echo "host reads back what the plugin wrote: $(cat "$target/from-plugin")"
echo "written by the host" >"$target/from-host"
[ "$(e2e_pod_exec "$plugin" cat "$target/from-host")" = "written by the host" ] ||
  e2e_die "the plugin does not read back what the host wrote"
echo "plugin reads back what the host wrote"
rm -f "$target/from-plugin" "$target/from-host"

e2e_section "what the plugin wrote, read back by a second CephFS client"
# The reads above go through the same FUSE mount (its cache may answer them). A second ceph-fuse
# client, started from the Ceph cluster's own namespace on a mount point of its own, reads the
# file from the cluster: the same checksum means the data reached Ceph.
size=$((4 * 1024 * 1024))
e2e_pod_exec "$plugin" sh -c "head -c $size /dev/urandom >'$target/data-$E2E_TAG' && sync '$target/data-$E2E_TAG'"
written=$(e2e_pod_exec "$plugin" sha256sum "$target/data-$E2E_TAG" | cut -d' ' -f1)
second=$E2E_SCOPE/second-client
mkdir -p "$second"
e2e_track_mount "$E2E_SCOPE" "$second"
CEPH_ARGS="--pid-file $E2E_SCOPE/second-client.pid" \
  nsenter --net="/run/netns/$(e2e_cluster_var c1 E2E_CEPH_NETNS)" -- \
  ceph-fuse "$second" -m "$(e2e_cluster_var c1 E2E_CEPH_MON)" -c "$conf" -n client.admin \
  --keyfile="$E2E_RUN/c1/admin.key" -r / --client_mds_namespace=cephfs -o nonempty \
  >"$E2E_SCOPE/second-client.log" 2>&1 || e2e_die "the second ceph-fuse client did not mount: $(tail -n 5 "$E2E_SCOPE/second-client.log")"
second_pid=$(e2e_pid_from_file "$E2E_SCOPE/second-client.pid" 10) || e2e_die "the second ceph-fuse wrote no pid file"
e2e_track_pid "$E2E_SCOPE" ceph-fuse-second "$second_pid"
[ "$(e2e_ns_id "/proc/$second_pid/ns/net")" != "$(e2e_ns_id "/run/netns/$E2E_HOLDER_NS")" ] ||
  e2e_die "the second client runs in the holder's namespace: it would not be another client's view"
read_back=$(sha256sum "$second/data-$E2E_TAG" | cut -d' ' -f1)
read_size=$(stat -c %s "$second/data-$E2E_TAG")
match=no
[ "$read_back" = "$written" ] && [ "$read_size" = "$size" ] && match=yes
e2e_figure d.ceph_fuse "$size bytes written through the plugin's ceph-fuse mount (sha256 ${written:0:16}), read by a second client: $read_size bytes (sha256 ${read_back:0:16}), match $match"
[ "$match" = yes ] || e2e_die "the second client read $read_size bytes, sha256 $read_back; the plugin wrote $size, sha256 $written"
rm -f "$second/data-$E2E_TAG"
umount "$second" || e2e_die "cannot unmount the second client at $second"
e2e_wait_until 10 "the second ceph-fuse to exit" e2e_pid_gone "$E2E_SCOPE" ceph-fuse-second ||
  e2e_die "the second ceph-fuse (pid $second_pid) still runs after its unmount"

e2e_section "netns-exec umount, from the plugin pod"
e2e_plugin_exec "$plugin" umount --cluster-id "$cid" --config "$cfg" --kind cephfs --timeout 30s "$target"
! grep -q " $target " /proc/self/mountinfo || e2e_die "the mount is still on the host after netns-exec umount"
e2e_wait_until 10 "ceph-fuse to exit after the unmount" e2e_pid_gone "$E2E_SCOPE" ceph-fuse ||
  e2e_die "ceph-fuse (pid $fuse_pid) still runs after the unmount"
