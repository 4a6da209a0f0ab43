# shellcheck shell=bash
# Fencing a node whose mapping goes through the holder: `netns-exec map` from the plugin's pod
# maps an image in the holder's namespace, a workload writes it directly (O_DIRECT, each completed
# write committed by the cluster). `netns-exec fence-info`, run as the plugin runs it (hostPID:
# the node's namespace is PID 1's, which has an address on the storage network here), prints the
# `ceph osd blocklist` commands a fence of this node needs; exactly those are run, from an
# operator's pod no fence covers. Then no write may complete for KTEST_CONTROL_QUIET_S (they fail
# or block), the device is force-unmapped while still fenced, the fence lifted (no blocklist entry
# left), and a fresh map through the holder writes again. The host reads both images back
# (ktest_expect_rbd_raw): the fenced one must hold exactly what the workload had completed when
# every OSD had the fence, so nothing reached it afterwards.
# figure: kernel.fence.holder
img=kfh-$KTEST_TAG
ktest_fence_scenario_start "$img" fh
holder_addr=$KTEST_FENCE_HOLDER_ADDR dev=$KTEST_FENCE_DEV

# What a fence of this node must cover, as fence-info prints it; the commands must be exactly the
# JSON's CIDRs, and those must include the holder's and the node's address.
ktest_exec "$KTEST_PLUGIN_NS" fence-info --node-netns /proc/1/ns/net --output ceph >"$KTEST_W/fence.cmds"
cat "$KTEST_W/fence.cmds"
cidrs=()
while read -r line; do
  [[ $line =~ ^ceph\ osd\ blocklist\ range\ add\ ([0-9.]+/32)$ ]] ||
    e2e_die "fence-info --output ceph printed a line that is not a blocklist command for an IPv4 address: $line"
  cidrs+=("${BASH_REMATCH[1]}")
done <"$KTEST_W/fence.cmds"
[ "$(printf '%s\n' "${cidrs[@]}" | sort)" = "$(jq -r '.cidrs[]' "$KTEST_W/fence.json" | sort)" ] ||
  e2e_die "fence-info's commands (${cidrs[*]}) differ from its JSON's cidrs: $(jq -c .cidrs "$KTEST_W/fence.json")"
for want in "$holder_addr/32" "$KTEST_NODE_ADDR/32"; do
  printf '%s\n' "${cidrs[@]}" | grep -xF "$want" >/dev/null || e2e_die "fence-info does not cover $want: ${cidrs[*]}"
done
[ "$(jq -r .complete "$KTEST_W/fence.json")" = true ] || e2e_die "fence-info says its answer is incomplete"

ktest_wait_writes fh 3 30 || e2e_die "the workload did not write before the fence"
ktest_fence "${cidrs[@]}"
# Every OSD has the fence: from here on no write may complete. What had completed is what the image
# must hold.
fence_writes=$(ktest_writes fh)
cp "$KTEST_W/fh.state" "$KTEST_W/fh.state.fenced"
ktest_wait_stall fh "$KTEST_CONTROL_QUIET_S" $((KTEST_CONTROL_QUIET_S + 30)) ||
  e2e_die "writes kept completing after the fence: $fence_writes when every OSD had it, $(ktest_writes fh) now"
fenced=yes
failed=$(ktest_write_errors fh)
pid=$(e2e_tracked_pid "$KTEST_SCOPE" workload-fh) || e2e_die "the workload died under the fence: $(tail -n 5 "$KTEST_W/fh.log")"
e2e_log "fenced: no write completed for ${KTEST_CONTROL_QUIET_S}s; $failed writes failed (workload $pid: $(grep State /proc/"$pid"/status))"
tail -n 3 "$KTEST_W/fh.log"

# Force-unmapped while still fenced (nothing held back can reach the image once the fence is
# lifted); the workload, its writes failed, exits.
ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --options force "$dev"
[ ! -e "$dev" ] || e2e_die "$dev still exists after netns-exec unmap --options force"
ktest_fence_workload_stop fh 30
after=$((KTEST_W_WRITES - fence_writes))
[ "$after" -eq 0 ] || e2e_die "$after writes completed after every OSD had the fence"
ktest_fence_lift || e2e_die "the fence could not be lifted"

# Unfenced, a fresh map through the holder writes again.
img2=kfh2-$KTEST_TAG
ktest_rbd_create "$KTEST_PLUGIN_NS" "$img2"
ktest_at_cleanup ktest_unmap_image_force "$img2"
dev2=$(ktest_map "$KTEST_PLUGIN_NS" "$img2")
ktest_fence_workload_start fh2 "$dev2"
ktest_wait_writes fh2 5 60 || e2e_die "the map made after the fence was lifted does not write"
ktest_fence_workload_stop fh2
[ "$KTEST_W_ERRORS" -eq 0 ] || e2e_die "$KTEST_W_ERRORS writes failed on the map made after the fence was lifted"
ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$dev2"
[ ! -e "$dev2" ] || e2e_die "$dev2 still exists after netns-exec unmap"
remap=ok
ktest_expect_rbd_raw kernel.fence.holder "$img2"

ktest_fence_expected "$KTEST_W/fh.state.fenced"
ktest_expect_rbd_raw kernel.fence.holder "$img"
echo "FIGURE kernel.fence.holder: fenced $fenced, writes_after_fence $after, unfenced_remap $remap, writes $fence_writes, failed_writes $failed"
