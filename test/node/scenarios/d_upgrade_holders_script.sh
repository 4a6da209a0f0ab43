# shellcheck shell=bash
# scripts/upgrade-holders.sh as an operator runs it, against the real API server: the dry run
# changes nothing; --apply has the kubelet replace the holder container in its pod (same sandbox,
# same namespace) while a vxlan flow made through the executor runs: LOST 0; the OnDelete
# DaemonSet's template gets the image; a second --apply has nothing to do. Control: deleting the
# holder pod (a new sandbox) kills the flow.
node_install_holders symlink
node_apply_plugin
node_start_far_end
dir=$(node_holder_dir)
holder_ip=$(node_plugin_exec netns-exec run --cluster-id "$NODE_CLUSTER" -- ip -4 -o addr show eth1 | awk '{print $4}' | cut -d/ -f1)
node_flow_create holder 103 "$holder_ip" 198.18.176.9 198.18.176.10
pod=$(node_holder_pod)
uid=$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.metadata.uid}')
pid=$(node_container_pid "$NODE_NS" "$pod" holder)
ino=$(stat -L -c %i "$dir/$NODE_CLUSTER.net.ns")
upgrade=$NODE_LIB/../../scripts/upgrade-holders.sh

"$upgrade" -n "$NODE_NS" --image localhost/netns-holder:2 >"$NODE_SCOPE/dry.out" || node_die "the dry run failed: $(cat "$NODE_SCOPE/dry.out")"
grep -F 'dry run: would run: kubectl' "$NODE_SCOPE/dry.out" >/dev/null || node_die "the dry run said nothing it would do: $(cat "$NODE_SCOPE/dry.out")"
[ "$(node_container_pid "$NODE_NS" "$pod" holder)" = "$pid" ] || node_die "the dry run replaced the holder"

node_ping_start holder 198.18.176.9
"$upgrade" -n "$NODE_NS" --image localhost/netns-holder:2 --timeout 120 --apply >"$NODE_SCOPE/apply.out" 2>&1 ||
  node_die "upgrade-holders.sh --apply failed: $(tail -n 5 "$NODE_SCOPE/apply.out")"
sleep 2
read -r sent received < <(node_ping_stop holder)
new_pid=$(node_container_pid "$NODE_NS" "$pod" holder)
[ "$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.metadata.uid}')" = "$uid" ] || node_die "the upgrade made a new pod"
[ -n "$new_pid" ] && [ "$new_pid" != "$pid" ] || node_die "the holder process was not replaced (pid $pid, now '$new_pid')"
[ "$(readlink "/proc/$new_pid/exe")" != "" ] && cmp -s "/proc/$new_pid/exe" "$NODE_HOLDER_NEXT_BIN" || node_die "the new holder does not run the second image's binary"
[ "$(stat -L -c %i "$dir/$NODE_CLUSTER.net.ns")" = "$ino" ] || node_die "the namespace changed across the upgrade"
[ "$(stat -L -c %i "/proc/$new_pid/ns/net")" = "$ino" ] || node_die "the new holder is not in the pod's namespace"
[ "$(kc -n "$NODE_NS" get ds -l app.kubernetes.io/name=netns-holder -o jsonpath='{.items[0].spec.template.spec.containers[0].image}')" = localhost/netns-holder:2 ] ||
  node_die "the DaemonSet's template was not updated"
lost=$((sent - received))
[ "$sent" -ge 10 ] || node_die "only $sent pings across the upgrade"
[ "$lost" -eq 0 ] || node_die "the flow lost $lost of $sent pings across the upgrade"
"$upgrade" -n "$NODE_NS" --image localhost/netns-holder:2 --apply >"$NODE_SCOPE/again.out" 2>&1 || node_die "a second --apply failed: $(cat "$NODE_SCOPE/again.out")"
grep -F 'already runs localhost/netns-holder:2' "$NODE_SCOPE/again.out" >/dev/null || node_die "a second --apply did something: $(cat "$NODE_SCOPE/again.out")"
node_figure k8s.upgrade_script "holder replaced in its pod (same uid, same netns), sent $sent LOST $lost"

# Control: a new pod sandbox is a new namespace; the flow made in the old one is gone.
kc -n "$NODE_NS" delete pod "$pod" --grace-period=1 --wait=true --timeout=60s >/dev/null
if node_far_exec ping -c 3 -W 1 198.18.176.9 >/dev/null; then node_die "the flow survived the holder pod's deletion"; fi
node_figure k8s.upgrade_script.control "holder pod deleted: flow dead"
