# shellcheck shell=bash
# c. Kernel-owned flow survives plugin restarts. A vxlan link's UDP socket belongs to the kernel
#    and to the namespace the link was created in, like krbd's sessions. Created through the
#    executor in the holder's namespace, its flow must survive 10 plugin restarts (container and
#    pod namespace deleted and recreated) with zero pings lost. The plugin has its own storage
#    interface, as in the field, so the link could be made there too: it must be in the holder's
#    namespace and not in the plugin's. Control: the same link created in the plugin's own
#    namespace, without the executor, loses the flow at the first restart. Both figures are
#    printed.
e2e_require_holder
e2e_require_exec run

restarts=10
cid=c-c1
cfg=$E2E_RUN/csi/c/config.json
st=$(e2e_cluster_var c1 E2E_CEPH_NETNS)
st_ip=$(e2e_cluster_var c1 E2E_CEPH_IP)
holder=$E2E_ID-c-holder
plugin=$E2E_ID-c-plugin

# The pings are the e2e library's (lib/scenario.sh: e2e_ping_start/stop/stats), from the storage
# namespace.

restart_plugin() {
  e2e_plugin_stop "$E2E_SCOPE" "$plugin"
  e2e_plugin_start "$E2E_SCOPE" "$plugin"
}

reachable() { nsenter --net="/run/netns/$st" -- ping -n -c 2 -i 0.2 -W 1 "$1" >/dev/null 2>&1; }

e2e_section "run 1: vxlan created through the executor in the holder's namespace"
e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
e2e_csi_config "$cfg" "$cid" c1 "$E2E_HOLDER_DIR/$cid.net.ns"
e2e_plugin_start "$E2E_SCOPE" "$plugin"

ip -n "$st" link add cvx-h type vxlan id 4201 remote "$E2E_HOLDER_ADDR" dstport 4789 dev storage0
e2e_track_link "$E2E_SCOPE" "$st" cvx-h
ip -n "$st" addr add 198.19.200.1/24 dev cvx-h
ip -n "$st" link set cvx-h up
e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --timeout 10s -- sh -c \
  "ip link add vx0 type vxlan id 4201 remote $st_ip dstport 4789 dev net1 && ip addr add 198.19.200.2/24 dev vx0 && ip link set vx0 up"
e2e_link_in_holder_only vx0
e2e_wait_until 10 "the vxlan peer in the holder to answer" reachable 198.19.200.2 ||
  e2e_die "no answer across the vxlan link created through the executor"

e2e_ping_start "$E2E_SCOPE" ping-holder "$st" 198.19.200.2
sleep 1
t0=$SECONDS
for i in $(seq 1 "$restarts"); do
  restart_plugin
  sleep 0.3
  e2e_log "plugin restart $i/$restarts done (new pod namespace $E2E_PLUGIN_NS)"
done
sleep 1
ip -n "$E2E_HOLDER_NS" link show vx0 >/dev/null || e2e_die "vx0 is gone from the holder's namespace"
e2e_ping_stop "$E2E_SCOPE" ping-holder
read -r h_sent h_recv h_lost < <(e2e_ping_stats "$E2E_SCOPE/ping-holder.log")
e2e_log "run 1: $restarts restarts in $((SECONDS - t0))s; pings sent $h_sent, received $h_recv, lost $h_lost"
e2e_plugin_stop "$E2E_SCOPE" "$plugin"

e2e_section "run 2 (control): the same vxlan created in the plugin's own namespace"
e2e_plugin_start "$E2E_SCOPE" "$plugin"
ip -n "$st" link add cvx-c type vxlan id 4202 remote "$E2E_PLUGIN_ADDR" dstport 4789 dev storage0
e2e_track_link "$E2E_SCOPE" "$st" cvx-c
ip -n "$st" addr add 198.19.201.1/24 dev cvx-c
ip -n "$st" link set cvx-c up
e2e_pod_exec "$plugin" sh -c \
  "ip link add vx0 type vxlan id 4202 remote $st_ip dstport 4789 dev net1 && ip addr add 198.19.201.2/24 dev vx0 && ip link set vx0 up"
e2e_wait_until 10 "the vxlan peer in the plugin to answer" reachable 198.19.201.2 ||
  e2e_die "control: no answer across the vxlan link created in the plugin's namespace"

e2e_ping_start "$E2E_SCOPE" ping-control "$st" 198.19.201.2
sleep 1
c_dead_after=
for i in $(seq 1 "$restarts"); do
  restart_plugin
  sleep 0.3
  if [ -z "$c_dead_after" ] && ! reachable 198.19.201.2; then
    c_dead_after=$i
  fi
  e2e_log "control: plugin restart $i/$restarts done"
done
sleep 1
e2e_ping_stop "$E2E_SCOPE" ping-control
read -r c_sent c_recv c_lost < <(e2e_ping_stats "$E2E_SCOPE/ping-control.log")

e2e_section "scenario c figures"
e2e_figure c.holder "$restarts plugin restarts, pings sent $h_sent, received $h_recv, LOST $h_lost"
e2e_figure c.control "$restarts plugin restarts, pings sent $c_sent, received $c_recv, LOST $c_lost (flow dead after restart ${c_dead_after:-never})"
[ "$h_sent" -gt 0 ] || e2e_die "run 1 sent no pings"
[ "$h_lost" -eq 0 ] || e2e_die "the flow through the holder's namespace lost $h_lost pings over $restarts plugin restarts"
[ "$c_dead_after" = 1 ] || e2e_die "control: the flow in the plugin's own namespace should die at the first restart (dead after: ${c_dead_after:-never})"
[ "$c_lost" -gt 0 ] || e2e_die "control: no pings lost, the control proves nothing"
