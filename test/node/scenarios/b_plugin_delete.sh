# shellcheck shell=bash
# kubectl delete pod of the node plugin, ten times: a kernel-owned flow (a vxlan link, LAB.md's
# stand-in for krbd's sessions) made through the executor in the holder's namespace loses nothing;
# the control, the same flow made in the plugin pod's own namespace, dies at the first delete —
# the kubelet tearing the sandbox down and the bridge plugin's CNI DEL removing its interfaces.
# Both modes: symlink (hostPID) and socket (the socket-mode component: no hostPID anywhere).
for mode in symlink socket; do
  suffix=
  [ "$mode" = symlink ] || suffix=.$mode
  node_install_holders "$mode"
  node_apply_plugin "$mode"
  node_start_far_end
  holder_ip=$(node_plugin_exec netns-exec run --cluster-id "$NODE_CLUSTER" -- ip -4 -o addr show eth1 | awk '{print $4}' | cut -d/ -f1)
  plugin_ip=$(node_plugin_exec ip -4 -o addr show eth1 | awk '{print $4}' | cut -d/ -f1)
  [ -n "$holder_ip" ] && [ -n "$plugin_ip" ] && [ "$holder_ip" != "$plugin_ip" ] ||
    node_die "storage addresses: holder '$holder_ip', plugin '$plugin_ip'"
  node_flow_create holder 101 "$holder_ip" 198.18.176.1 198.18.176.2
  node_flow_create plugin 102 "$plugin_ip" 198.18.176.5 198.18.176.6
  node_far_exec ping -c 3 -W 2 198.18.176.1 >/dev/null || node_die "the flow through the holder does not answer"
  node_far_exec ping -c 3 -W 2 198.18.176.5 >/dev/null || node_die "the control flow does not answer before any delete"
  # Bidirectional propagation of the kubelet's pods directory, as the kubelet sets it up: a mount
  # the plugin makes there (as NodePublishVolume does) is the host's, and outlives the plugin pod.
  mnt=$NODE_RUN/kubelet/pods/nhk-propagation-$mode
  node_plugin_exec sh -c "mkdir -p $mnt && mount -t tmpfs -o size=1m nhk-$mode $mnt"
  awk -v m="$mnt" '$5 == m' /proc/self/mountinfo | grep . >/dev/null || node_die "the plugin's mount at $mnt is not on the host"
  node_ping_start holder 198.18.176.1
  control_died=
  for i in $(seq 1 10); do
    old=$(node_plugin_pod)
    old_ip=$plugin_ip
    kc -n "$NODE_NS" delete pod "$old" --wait=true --timeout=60s >/dev/null || node_die "delete $i: the plugin pod $old did not go"
    # The CNI DEL of the old sandbox released its storage address.
    [ ! -e "$NODE_RUN/cni/ipam/nhk-storage/$old_ip" ] || node_die "delete $i: the bridge plugin's DEL did not release $old_ip"
    node_wait 90 "plugin pod $i Ready" node_plugin_ready || node_die "delete $i: no new plugin pod Ready"
    plugin_ip=$(node_plugin_exec ip -4 -o addr show eth1 | awk '{print $4}' | cut -d/ -f1)
    if [ -z "$control_died" ]; then
      if ! node_far_exec ping -c 3 -W 1 198.18.176.5 >/dev/null; then control_died=$i; fi
    fi
  done
  read -r sent received < <(node_ping_stop holder)
  lost=$((sent - received))
  node_log "holder flow: $sent sent, $received received over 10 deletes; control died at delete ${control_died:-never}"
  [ "$sent" -ge 20 ] || node_die "only $sent pings were sent across the deletes"
  [ "$lost" -eq 0 ] || node_die "the flow through the holder lost $lost of $sent pings"
  [ "$control_died" = 1 ] || node_die "the control flow in the plugin's own namespace survived delete 1 (died at ${control_died:-never})"
  awk -v m="$mnt" '$5 == m' /proc/self/mountinfo | grep . >/dev/null || node_die "the plugin's mount at $mnt went with the plugin pod"
  umount "$mnt"
  rmdir "$mnt"
  node_figure "k8s.plugin_delete.holder$suffix" "deletes 10, lost 0 of $sent"
  node_figure "k8s.plugin_delete.control$suffix" "deletes 1, dead after delete 1 (the kubelet's sandbox teardown and CNI DEL)"
  kc -n "$NODE_NS" delete pod/far ds/csi-rbdplugin --grace-period=1 --wait=true --timeout=60s >/dev/null
  node_uninstall_holders
done
