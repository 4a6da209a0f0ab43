# shellcheck shell=bash
# The control of fence_holder: the same mapping through the holder and the same workload, but the
# fence covers only the node's own addresses (fence-info's `node` part: what a NetworkFence built
# from the node's addresses holds). The fence is real — a userspace client from the node's own
# namespace is refused with EBLOCKLISTED — and yet the holder's mapping keeps writing for
# KTEST_CONTROL_QUIET_S, with no error: the reason fence-info also prints the holder's address.
# Then the fence is lifted (no blocklist entry left), the device unmapped, and the host reads the
# image back: it holds every write the workload completed, the ones after the fence included.
# figure: kernel.fence.node_address
img=kfn-$KTEST_TAG
ktest_fence_scenario_start "$img" fn
holder_addr=$KTEST_FENCE_HOLDER_ADDR dev=$KTEST_FENCE_DEV
mapfile -t node_cidrs < <(jq -r '.node.addresses[].cidr' "$KTEST_W/fence.json")
[ "${#node_cidrs[@]}" -gt 0 ] || e2e_die "fence-info lists no address of the node's own namespace"
printf '%s\n' "${node_cidrs[@]}" | grep -xF "$KTEST_NODE_ADDR/32" >/dev/null ||
  e2e_die "fence-info's node addresses (${node_cidrs[*]}) miss the node's $KTEST_NODE_ADDR"
! printf '%s\n' "${node_cidrs[@]}" | grep -xF "$holder_addr/32" >/dev/null ||
  e2e_die "fence-info lists the holder's $holder_addr among the node's own addresses"

ktest_wait_writes fn 3 30 || e2e_die "the workload did not write before the fence"
ktest_fence "${node_cidrs[@]}"
fence_writes=$(ktest_writes fn)
# The fence covers what it names: the node's own namespace is refused by the OSD.
probe=$(timeout 60 rados -c "$KTEST_CONF" --client-mount-timeout 10 -p rbd put "fence-probe-$KTEST_TAG" /etc/hostname 2>&1) &&
  e2e_die "a client from the node's own address $KTEST_NODE_ADDR wrote while that address was fenced"
grep -q '(108)' <<<"$probe" || e2e_die "the client from the node's own address failed, but not as blocklisted: $probe"
node_refused=yes
e2e_log "a client from the node's own address is refused: $probe"

# The holder's mapping is not covered: its writes go on.
t0=$SECONDS
sleep "$KTEST_CONTROL_QUIET_S"
after=$(($(ktest_writes fn) - fence_writes))
errors=$(ktest_write_errors fn)
[ "$errors" -eq 0 ] || e2e_die "$errors writes failed on the holder's mapping under the node-address fence: $(tail -n 3 "$KTEST_W/fn.log")"
[ "$after" -ge 10 ] || e2e_die "only $after writes completed in $((SECONDS - t0))s after the node-address fence"
fenced=no
e2e_log "$after writes completed in $((SECONDS - t0))s under the node-address fence, 0 failed"

ktest_fence_lift || e2e_die "the fence could not be lifted"
ktest_fence_workload_stop fn
[ "$KTEST_W_ERRORS" -eq 0 ] || e2e_die "$KTEST_W_ERRORS writes failed"
ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$dev"
[ ! -e "$dev" ] || e2e_die "$dev still exists after netns-exec unmap"
ktest_expect_rbd_raw kernel.fence.node_address "$img"
echo "FIGURE kernel.fence.node_address: fenced $fenced, writes_after_fence $after, node_client_refused $node_refused, writes $KTEST_W_WRITES"
