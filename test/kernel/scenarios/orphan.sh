# shellcheck shell=bash
# A mapping nobody serves, on the real krbd client: an image mapped through the holder, then the
# holder's sandbox replaced as a containerd restart replaces it (containerd#7843): the old holder
# process killed, CNI DEL (the old pod's eth0 and net1 deleted), the old sandbox namespace
# deleted, a new one with a new net1, a new holder for the same cluster publishing in the same
# directory. The kernel client stays in the old namespace, whose interfaces are gone.
# Before the replacement (the control: the check can fail), the mapping is served by the live
# holder: `inspect --json` node_mappings does not flag it. After it, `netns-exec doctor` names
# the device, its image, the client's address and what it means, and exits non-zero, and
# node_mappings flags it. Then the old namespace gets its address back and the device is unmapped.
# figure: kernel.orphan
ktest_holder_start
ktest_plugin_start plugin
ns=$KTEST_PLUGIN_NS
img=ko-$KTEST_TAG
old_ns=$KTEST_HOLDER_NS
old_ip=$(ip -n "$old_ns" -4 -o addr show dev net1 | awk '{ split($4, a, "/"); print a[1] }')
[ -n "$old_ip" ] || e2e_die "cannot read the holder's net1 address in $old_ns"
ktest_rbd_create "$ns" "$img"
dev=$(ktest_map "$ns" "$img")
e2e_log "mapped $dev through the holder in $old_ns (net1 $old_ip)"
# The test keeps a handle on the old namespace (a process in it, not part of the holder) so that
# its client can be given its address back and be unmapped at the end, and the namespace is
# never freed with sockets in it (see ktest_control).
e2e_spawn "$KTEST_SCOPE" old-ns-pin "$old_ns" /dev/null sleep infinity
ko_pin=$(e2e_tracked_pid "$KTEST_SCOPE" old-ns-pin)
ko_cleanup() {
  [ -e "$dev" ] || return 0
  if ! ip -n "$old_ns" link show net1 >/dev/null 2>&1 && [ -e "/proc/$ko_pin/ns/net" ]; then
    # The old namespace reached again: a new net1 with its old address.
    ip link add ko-net1 type veth peer name "ko$KTEST_TAG" netns k-storage &&
      ip -n k-storage link set "ko$KTEST_TAG" master storage0 up &&
      ip link set ko-net1 netns "/proc/$ko_pin/ns/net" &&
      nsenter --net="/proc/$ko_pin/ns/net" -- ip link set ko-net1 name net1 &&
      nsenter --net="/proc/$ko_pin/ns/net" -- ip addr add "$old_ip/20" dev net1 &&
      nsenter --net="/proc/$ko_pin/ns/net" -- ip link set net1 up ||
      e2e_log "cleanup: could not give the old namespace its address back"
  fi
  e2e_wait_until 30 "the old client to reconnect" ko__sessions ||
    e2e_log "cleanup: no established session in the old namespace after 30 s: $(nsenter --net="/proc/$ko_pin/ns/net" -- ss -tan)"
  # (noudev: no udev runs in the guest, and rbd would wait for its event.)
  ktest_bounded 90 "rbd unmap -o force,noudev $dev" rbd unmap -o force,noudev "$dev"
  dmesg | tail -n 20
  ip -n k-storage link del "ko$KTEST_TAG" 2>/dev/null || true
}
ko__sessions() { nsenter --net="/proc/$ko_pin/ns/net" -- ss -Htan state established | grep . >/dev/null; }
ktest_at_cleanup ko_cleanup

# ko_flagged FILE — how many entries of node_mappings are this scenario's device, flagged.
ko_flagged() {
  jq --arg dev "$dev" --arg img "rbd/$img" \
    '[.node_mappings.mappings[] | select(.kind == "rbd" and .object == $dev and .image == $img and .orphaned)] | length' "$1"
}
ko_inspect() {
  "$KTEST_EXEC_BIN" inspect --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --json \
    --holder-dir "$KTEST_HOLDER_DIR" >"$1" || e2e_die "inspect --json failed (exit $?)"
  jq -Mc '.node_mappings' "$1"
}

# The control: served by the live holder, the mapping is listed and not flagged.
ko_inspect "$KTEST_W/before.json"
listed=$(jq --arg dev "$dev" '[.node_mappings.mappings[] | select(.object == $dev)] | length' "$KTEST_W/before.json")
served=$(jq -r --arg dev "$dev" '.node_mappings.mappings[] | select(.object == $dev) | .served_by // ""' "$KTEST_W/before.json")
control_flagged=$(ko_flagged "$KTEST_W/before.json")
[ "$listed" -eq 1 ] || e2e_die "inspect lists $dev $listed times while the holder serves it (want 1)"
[ "$control_flagged" -eq 0 ] || e2e_die "inspect flags $dev while the live holder serves it"
case $served in *holder*) ;; *) e2e_die "$dev is not said to be served by the holder: '$served'" ;; esac
e2e_log "control: $dev listed, served by $served, not flagged"

# The sandbox replaced: the holder killed (a containerd restart takes its sandbox with it), CNI
# DEL, the namespace deleted; a new sandbox and a new holder for the same cluster.
holder_pid=$(e2e_tracked_pid "$KTEST_SCOPE" holder)
kill -KILL "$holder_pid"
e2e_wait_until 10 "the old holder $holder_pid to exit" eval '! e2e_tracked_pid "$KTEST_SCOPE" holder >/dev/null' ||
  e2e_die "the old holder $holder_pid did not exit"
ip -n "$old_ns" link del eth0
ip -n "$old_ns" link del net1
e2e_podnet_delete "$KTEST_SCOPE" "$old_ns"
new_ns=$(e2e_podnet_create "$KTEST_SCOPE" holder)
new_ip=$(e2e_podnet_attach_storage "$new_ns" "$KTEST_STORAGE_ENV")
e2e_spawn "$KTEST_SCOPE" holder-new "$new_ns" "$KTEST_W/holder-new.log" \
  "$KTEST_HOLDER_BIN" --cluster-id "$KTEST_CID" --dir "$KTEST_HOLDER_DIR"
new_pid=$(e2e_tracked_pid "$KTEST_SCOPE" holder-new)
ko_record_is_new() { [ "$(jq -r .pid "$KTEST_HOLDER_DIR/$KTEST_CID.holder.json" 2>/dev/null)" = "$new_pid" ]; }
e2e_wait_until 20 "the new holder to publish its record" ko_record_is_new ||
  e2e_die "the new holder did not publish: $(cat "$KTEST_W/holder-new.log")"
KTEST_HOLDER_NS=$new_ns
e2e_log "sandbox replaced: holder $new_pid in $new_ns (net1 $new_ip); $old_ns deleted, its eth0 and net1 gone"

# doctor: names the stranded device and exits non-zero.
rc=0
"$KTEST_EXEC_BIN" doctor --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" \
  --holder-dir "$KTEST_HOLDER_DIR" >"$KTEST_W/doctor.txt" 2>&1 || rc=$?
cat "$KTEST_W/doctor.txt"
[ "$rc" -ne 0 ] || e2e_die "doctor exited 0 with $dev stranded"
line=$(grep -F "$dev" "$KTEST_W/doctor.txt" | grep FAIL || [ $? -eq 1 ])
[ -n "$line" ] || e2e_die "doctor has no FAIL line for $dev"
for want in "rbd/$img" "$old_ip" "namespace is gone"; do
  grep -qF "$want" <<<"$line" || e2e_die "doctor's line for $dev does not name '$want': $line"
done
ko_inspect "$KTEST_W/after.json"
devices=$(ko_flagged "$KTEST_W/after.json")
flagged=no
[ "$devices" -ge 1 ] && flagged=yes
others=$(jq --arg dev "$dev" '[.node_mappings.mappings[] | select(.orphaned and .object != $dev)] | length' "$KTEST_W/after.json")
e2e_log "doctor exited $rc; node_mappings flags $dev ($devices) and $others other mappings (left by earlier scenarios)"
echo "FIGURE kernel.orphan: flagged $flagged, devices $devices"
[ "$devices" -eq 1 ] || e2e_die "node_mappings flags $dev $devices times (want 1)"
