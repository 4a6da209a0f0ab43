# shellcheck shell=bash
# Library mode: the holder chart in mode library (socket-mode holders; ceph-csi's config names
# <ID>.net.sock as netNamespaceFilePath), the plugin DaemonSet rendered by kustomize with the
# library component (no hostPID, no shim environment) and the library plugin image, whose
# library caller stands for ceph-csi's patched plugin (node_library_image): the kernel-owned
# flow (the vxlan stand-in for krbd) is made by the library, in-process, from the cluster ID and
# ceph-csi's config, never by netns-exec. kubectl delete pod ten times: the flow loses 0; the
# control flow, made in the plugin pod's own namespace, dies at the first delete; the pod spec
# as the API server returns it has no hostPID, and the plugin's processes are not in the host's
# pid namespace.
caller=/usr/local/bin/netns-library-caller
config=/etc/ceph-csi-config/config.json
node_library_image
node_install_holders library
sock=$(node_holder_dir)/$NODE_CLUSTER.net.sock
[ -S "$sock" ] || node_die "library mode: no $sock"
node_apply_plugin library
node_start_far_end
# What the plugin is given: the socket as netNamespaceFilePath, and nothing of ours to exec.
[ "$(node_plugin_exec cat "$config" | jq -r --arg id "$NODE_CLUSTER" '.[] | select(.clusterID == $id) | .rbd.netNamespaceFilePath')" = "$sock" ] ||
  node_die "ceph-csi's config in the plugin pod does not name $sock: $(node_plugin_exec cat "$config")"
! node_plugin_exec sh -c 'command -v netns-exec || ls /usr/local/bin/netns-exec' >/dev/null 2>&1 ||
  node_die "the library plugin pod has netns-exec"
in_holder() { node_plugin_exec "$caller" "$config" "$NODE_CLUSTER" "$@"; }
holder_ip=$(in_holder ip -4 -o addr show eth1 | awk '{print $4}' | cut -d/ -f1)
plugin_ip=$(node_plugin_exec ip -4 -o addr show eth1 | awk '{print $4}' | cut -d/ -f1)
[ -n "$holder_ip" ] && [ -n "$plugin_ip" ] && [ "$holder_ip" != "$plugin_ip" ] ||
  node_die "storage addresses: holder '$holder_ip', plugin '$plugin_ip'"
# A refusal is the library's, exit 125: a cluster the config does not know.
rc=0
node_plugin_exec "$caller" "$config" nhk-unknown true >"$NODE_SCOPE/refusal.out" 2>&1 || rc=$?
[ "$rc" -eq 125 ] || node_die "an unknown cluster was not refused (exit $rc): $(cat "$NODE_SCOPE/refusal.out")"
make_link() { echo "ip link add nhkvx$1 type vxlan id $1 remote $NODE_FAR_IP dstport 4789 dev eth1 && ip addr add $2/30 dev nhkvx$1 && ip link set nhkvx$1 up"; }
in_holder sh -c "$(make_link 111 198.18.176.9)"
! node_plugin_exec ip link show nhkvx111 >/dev/null 2>&1 || node_die "nhkvx111 was made in the plugin's own namespace"
in_holder ip link show nhkvx111 >/dev/null || node_die "nhkvx111 is not in the holder's namespace"
node_plugin_exec sh -c "$(make_link 112 198.18.176.13)"
node_far_exec sh -c "ip link add nhkvx111 type vxlan id 111 remote $holder_ip dstport 4789 dev eth1 && ip addr add 198.18.176.10/30 dev nhkvx111 && ip link set nhkvx111 up"
node_far_exec sh -c "ip link add nhkvx112 type vxlan id 112 remote $plugin_ip dstport 4789 dev eth1 && ip addr add 198.18.176.14/30 dev nhkvx112 && ip link set nhkvx112 up"
node_far_exec ping -c 3 -W 2 198.18.176.9 >/dev/null || node_die "the flow through the holder does not answer"
node_far_exec ping -c 3 -W 2 198.18.176.13 >/dev/null || node_die "the control flow does not answer before any delete"
node_ping_start library 198.18.176.9
control_died= hostpid=
for i in $(seq 1 10); do
  old=$(node_plugin_pod)
  # The pod spec as the API server returns it, and the plugin's pid namespace on the host.
  [ "$(kc -n "$NODE_NS" get pod "$old" -o json | jq -r '.spec.hostPID // false')" = false ] || hostpid=true
  pid=$(node_container_pid "$NODE_NS" "$old" csi-rbdplugin) || node_die "delete $i: no PID for $old"
  [ "$(stat -L -c %i "/proc/$pid/ns/pid")" != "$(stat -L -c %i /proc/self/ns/pid)" ] || hostpid=true
  kc -n "$NODE_NS" delete pod "$old" --wait=true --timeout=60s >/dev/null || node_die "delete $i: the plugin pod $old did not go"
  node_wait 90 "plugin pod $i Ready" node_plugin_ready || node_die "delete $i: no new plugin pod Ready"
  # Each new pod's library still reaches the holder.
  in_holder ip link show nhkvx111 >/dev/null || node_die "delete $i: the new plugin pod's library does not reach the holder's nhkvx111"
  if [ -z "$control_died" ]; then
    if ! node_far_exec ping -c 3 -W 1 198.18.176.13 >/dev/null; then control_died=$i; fi
  fi
done
read -r sent received < <(node_ping_stop library)
lost=$((sent - received))
[ "$(kc -n "$NODE_NS" get ds csi-rbdplugin -o json | jq -r '.spec.template.spec.hostPID // false')" = false ] || hostpid=true
node_log "library flow: $sent sent, $received received over 10 deletes; control died at delete ${control_died:-never}; hostPID ${hostpid:-false}"
[ -z "$hostpid" ] || node_die "the library-mode plugin had hostPID or the host's pid namespace"
[ "$sent" -ge 20 ] || node_die "only $sent pings were sent across the deletes"
[ "$lost" -eq 0 ] || node_die "the flow the library made through the holder lost $lost of $sent pings"
[ "$control_died" = 1 ] || node_die "the control flow in the plugin's own namespace survived delete 1 (died at ${control_died:-never})"
node_figure "k8s.plugin_delete.library" "deletes 10, lost 0, hostPID false"
node_figure "k8s.plugin_delete.library.control" "deletes 1, dead after delete 1 (the kubelet's sandbox teardown and CNI DEL)"
kc -n "$NODE_NS" delete pod/far ds/csi-rbdplugin --grace-period=1 --wait=true --timeout=60s >/dev/null
node_uninstall_holders
