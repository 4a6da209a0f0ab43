# shellcheck shell=bash
# Link flap under NVMe/TCP through the holder, and where nvme-tcp's reconnect opens its sockets
# (guest/faults.sh, guest/targets.sh). ceph-csi's plain `nvme connect ... -l 1800` through the
# nvme shim from the plugin's pod puts the controller's queues in the holder's namespace (`inspect
# --json --sockets` there; none in the node's initial namespace); the workload writes the raw
# namespace through 3 plugin restarts; then the holder's net1 goes down for KTEST_FLAP_NVME_S (the
# controller must leave "live": keep-alive lost, queues torn down, reconnecting) and comes back.
# Without a route to the target from the node's own namespace, the writes get
# KTEST_NVME_NOROUTE_S to resume; if they do not, the node's namespace gets an address on the
# storage network (as a node with its own storage NIC has; ktest_node_storage_attach) and the
# writes must resume then. Where the new queues are (holder's or node's namespace, from inspect)
# and whether the route was needed is the figure kernel.fault.nvme_reconnect; the data is read
# back from the target's backing file after `nvme disconnect`.
# figure: kernel.fault.link_flap.nvme.holder
# figure: kernel.fault.nvme_reconnect
# shellcheck source=../guest/targets.sh
. "$KTEST_SRC/guest/targets.sh"
# shellcheck source=../guest/faults.sh
. "$KTEST_SRC/guest/faults.sh"
# Four of nvme-tcp's reconnect attempts (reconnect_delay: 10 s by default, as ceph-csi leaves it).
KTEST_NVME_NOROUTE_S=40
ktest_holder_start
ktest_plugin_start plugin
ktest_nvmet_up flap
ktest_target_shims_install
# shellcheck disable=SC2046
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 60 nvme $(ktest_nvme_connect_args)
dev=$(ktest_nvme_wait_disk)
ctrl=$(ktest_nvme_ctrls "$KTEST_NVME_NQN")
holder_q=$(ktest_kernel_socks holder "$KTEST_NVME_PORT")
node_q=$(ktest_kernel_socks node "$KTEST_NVME_PORT")
e2e_log "controller $ctrl ($dev): $holder_q queues in the holder's namespace, $node_q in the node's (inspect)"
[ "$holder_q" -gt 0 ] && [ "$node_q" -eq 0 ] ||
  e2e_die "after the connect through the shim the queues are not all in the holder's namespace: holder $holder_q, node $node_q"
KTEST_FAULT_WORKLOAD=nvme
ktest_workload_start nvme "$dev"
ktest_restarts nvme "$KTEST_FAULT_RESTARTS"

kmsg=$(dmesg | wc -l)
nf_state() { cat "/sys/class/nvme/$ctrl/state" >>"$KTEST_W/states"; }
ktest_flap "$KTEST_HOLDER_NS" net1 "$KTEST_FLAP_NVME_S" nf_state
seen=$(awk '!s[$0]++' "$KTEST_W/states" | tr '\n' ' ')
e2e_log "controller $ctrl during the flap: $seen(now $(cat "/sys/class/nvme/$ctrl/state"))"
grep -vx live "$KTEST_W/states" >/dev/null ||
  e2e_die "controller $ctrl stayed live through a ${KTEST_FLAP_NVME_S}s flap: no reconnect to measure (lengthen KTEST_FLAP_NVME_S)"

ktest_fault_resume nvme "$KTEST_NVME_NOROUTE_S"
resumed=$KTEST_F_RESUMED
errors_noroute=$(ktest_write_errors nvme)
echo "----- kernel messages since the flap -----"
ktest_kmsg_since "$kmsg"
# The reconnect's own error, if it failed ("failed to connect socket: -101": no route).
connect_error=$(ktest_kmsg_since "$kmsg" | sed -n "s/.*$ctrl: failed to connect socket: \(-[0-9]*\).*/\1/p" | tail -n 1)
resumed_node=-
if [ "$resumed" = no ]; then
  e2e_log "no write for ${KTEST_NVME_NOROUTE_S}s after net1 came back (controller $(cat "/sys/class/nvme/$ctrl/state"), last connect error ${connect_error:-none}); giving the node's namespace a route to the target"
  ktest_node_storage_attach
  ktest_fault_resume nvme "$KTEST_FAULT_RESUME_S"
  resumed_node=$KTEST_F_RESUMED
  [ "$resumed_node" = yes ] ||
    e2e_die "the controller did not resume with a route from the node's namespace either (state $(cat "/sys/class/nvme/$ctrl/state")): $(ktest_kmsg_since "$kmsg" | tail -n 5)"
  route_needed=yes
else
  route_needed=no
fi
holder_q=$(ktest_kernel_socks holder "$KTEST_NVME_PORT")
node_q=$(ktest_kernel_socks node "$KTEST_NVME_PORT")
e2e_log "after the reconnect: $holder_q queues in the holder's namespace, $node_q in the node's (inspect)"
if [ "$node_q" -gt 0 ] && [ "$holder_q" -eq 0 ]; then
  namespace=node
elif [ "$holder_q" -gt 0 ] && [ "$node_q" -eq 0 ]; then
  namespace=holder
else
  e2e_die "after the reconnect the queues are in neither namespace alone: holder $holder_q, node $node_q"
fi
# What the measurement must agree with: a reconnect from the holder's namespace needs no route of
# the node's; one from the node's resumed only once the node had one.
case $namespace/$route_needed in
  holder/no | node/yes) ;;
  *) e2e_die "inconsistent: the new queues are in the $namespace's namespace, yet route_needed is $route_needed" ;;
esac
ktest_wait_writes nvme 3 30 || e2e_die "writes stalled again after resuming"
ktest_workload_stop nvme
[ "$KTEST_W_VERIFIED" = yes ] || e2e_die "the data read back does not match what was written"
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 60 nvme disconnect -d "/dev/$ctrl"
[ -z "$(ktest_nvme_ctrls "$KTEST_NVME_NQN")" ] || e2e_die "controller $ctrl still there after nvme disconnect -d /dev/$ctrl"
ktest_expect_nvme_file
echo "FIGURE kernel.fault.link_flap.nvme.holder: writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, resumed $resumed, resumed_with_node_route $resumed_node, max_stall_ms $KTEST_W_STALL, down_s $KTEST_FLAP_NVME_S, errors_before_route $errors_noroute, verified_from_server $KTEST_T_VERIFIED"
echo "FIGURE kernel.fault.nvme_reconnect: namespace $namespace, route_needed $route_needed, connect_error_without_route ${connect_error:-none}"
