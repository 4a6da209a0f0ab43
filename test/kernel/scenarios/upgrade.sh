# shellcheck shell=bash
# Holder replaced in its sandbox (a container restart inside the holder's pod): with an image
# mapped and written to, the holder process is replaced by a new one in the same namespace. I/O
# continues, new maps go through the new holder, and the old holder's record is refused; the
# image is read back from Ceph's side by the host (ktest_expect_rbd_ext4).
# figure: kernel.upgrade
ktest_holder_start
ns=$KTEST_HOLDER_NS
ktest_plugin_start plugin
img=ku-$KTEST_TAG
ktest_rbd_create "$KTEST_PLUGIN_NS" "$img"
dev=$(ktest_map "$KTEST_PLUGIN_NS" "$img")
mkfs.ext4 -q "$dev"
mkdir -p /mnt/ku
mount "$dev" /mnt/ku
e2e_track_mount "$KTEST_SCOPE" /mnt/ku
ktest_workload_start ku /mnt/ku/data
old_pid=$(jq -r .pid "$KTEST_HOLDER_DIR/$KTEST_CID.holder.json")
cp "$KTEST_HOLDER_DIR/$KTEST_CID.holder.json" "$KTEST_W/old.holder.json"

e2e_section "the holder process is replaced; its namespace stays"
e2e_scope_kill_one() {
  local pid
  pid=$(e2e_tracked_pid "$KTEST_SCOPE" holder) || return 0
  kill -TERM "$pid"
  e2e_wait_until 10 "holder $pid to exit" e2e__gone "$pid" || e2e_die "the old holder did not exit on SIGTERM"
}
e2e__gone() { [ ! -e "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status"; }
e2e_scope_kill_one
e2e_spawn "$KTEST_SCOPE" holder2 "$ns" "$KTEST_W/holder2.log" \
  "$KTEST_HOLDER_BIN" --cluster-id "$KTEST_CID" --dir "$KTEST_HOLDER_DIR"
ktest__new_record() { [ "$(jq -r .pid "$KTEST_HOLDER_DIR/$KTEST_CID.holder.json" 2>/dev/null)" != "$old_pid" ]; }
e2e_wait_until 20 "the new holder to publish" ktest__new_record ||
  e2e_die "the new holder did not publish: $(cat "$KTEST_W/holder2.log")"
new_pid=$(jq -r .pid "$KTEST_HOLDER_DIR/$KTEST_CID.holder.json")
e2e_log "holder $old_pid replaced by $new_pid in $ns"
ktest_wait_writes ku 20 60 || e2e_die "I/O stalled after the holder was replaced"

e2e_section "new maps go through the new holder"
want=$(stat -L -c %i "/run/netns/$ns")
got=$(ktest_exec "$KTEST_PLUGIN_NS" run --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --timeout 30s -- \
  stat -L -c %i /proc/self/ns/net)
[ "$got" = "$want" ] || e2e_die "a command ran in namespace $got, not the holder sandbox's $want"
img2=ku2-$KTEST_TAG
ktest_rbd_create "$KTEST_PLUGIN_NS" "$img2"
dev2=$(ktest_map "$KTEST_PLUGIN_NS" "$img2")
[ -b "$dev2" ] || e2e_die "the map through the new holder gave no device ($dev2)"
pid=$(ktest_exec "$KTEST_PLUGIN_NS" inspect --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --json | jq -r .namespace.holder.pid)
[ "$pid" = "$new_pid" ] || e2e_die "inspect names holder $pid, expected the new $new_pid"
e2e_log "a new map through holder $new_pid gave $dev2"

e2e_section "the old holder's record is refused"
old_dir=/var/lib/kubelet/plugins/old-holder
install -d -m 0755 -o root -g root "$old_dir"
install -m 0644 "$KTEST_W/old.holder.json" "$old_dir/$KTEST_CID.holder.json"
ln -s "/run/netns/$ns" "$old_dir/$KTEST_CID.net.ns"
rc=0
ktest_exec "$KTEST_PLUGIN_NS" run --netns "$old_dir/$KTEST_CID.net.ns" --timeout 10s -- true >"$KTEST_W/old.out" 2>&1 || rc=$?
cat "$KTEST_W/old.out"
[ "$rc" -eq 125 ] || e2e_die "the old record was accepted (exit $rc), expected a refusal (125)"
e2e_log "the old holder's record (pid $old_pid) is refused with 125"

ktest_workload_stop ku
umount /mnt/ku
[ "$KTEST_W_ERRORS" -eq 0 ] || e2e_die "$KTEST_W_ERRORS I/O errors"
[ "$KTEST_W_VERIFIED" = yes ] || e2e_die "the data read back does not match what was written"
ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$dev"
ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$dev2"
ktest_expect_rbd_ext4 kernel.upgrade "$img" /data
echo "FIGURE kernel.upgrade: writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, verified $KTEST_W_VERIFIED"
