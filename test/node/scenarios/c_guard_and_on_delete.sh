# shellcheck shell=bash
# The preStop guard as the kubelet runs it, and OnDelete. A chart upgrade (a new image in the
# template) leaves the running holder pod alone. kubectl delete pod of a holder with a live Ceph
# session in its namespace (a TCP connection to a monitor's port, made by the plugin through the
# executor) waits, and the guard's lines are in the holder's log; once the session ends, the pod
# goes. Control: a holder with no session goes at once.
node_install_holders symlink
node_apply_plugin
node_start_far_end
pod=$(node_holder_pod)
uid=$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.metadata.uid}')

# OnDelete: the template changes, the pod does not.
node_helm upgrade netns "$NODE_CHART" -n "$NODE_NS" --reuse-values --set-string image.tag=2 >/dev/null
[ "$(kc -n "$NODE_NS" get ds -l app.kubernetes.io/name=netns-holder -o jsonpath='{.items[0].spec.template.spec.containers[0].image}')" = localhost/netns-holder:2 ] ||
  node_die "helm upgrade did not change the holder DaemonSet's template"
sleep 10 # the DaemonSet controller's turn: with OnDelete it must do nothing
[ "$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.metadata.uid}')" = "$uid" ] || node_die "the chart upgrade replaced the holder pod (OnDelete not honoured)"
[ "$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.spec.containers[0].image}')" = localhost/netns-holder:1 ] || node_die "the chart upgrade changed the running holder's image"
[ -z "$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.metadata.deletionTimestamp}')" ] || node_die "the chart upgrade is deleting the holder pod"
node_figure k8s.on_delete "chart upgrade: holder pod kept (same uid, old image), template updated"

# A session in the holder's namespace, held by a process of the plugin's container.
node_plugin_exec sh -c "netns-exec run --cluster-id $NODE_CLUSTER -- bash -c 'echo \$\$ >/tmp/session.pid; exec 3<>/dev/tcp/$NODE_FAR_IP/6789; exec sleep 600' >/dev/null 2>&1 &"
node_wait 10 "the session" node_plugin_exec test -s /tmp/session.pid || node_die "the session did not start"
dir=$(node_holder_dir)
count=$("$NODE_EXEC_BIN" guard --count --netns "$dir/$NODE_CLUSTER.net.ns")
[ "$count" -ge 1 ] || node_die "the guard counts $count sessions in the holder's namespace"
t0=$SECONDS
kc -n "$NODE_NS" delete pod "$pod" --wait=false >/dev/null
sleep 12
state=$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.metadata.deletionTimestamp} {.status.containerStatuses[0].state.running.startedAt}' 2>/dev/null) ||
  node_die "the holder pod went while a session lived in its namespace"
[[ $state == *" "?* ]] || node_die "the holder container stopped while a session lived (state '$state')"
kc -n "$NODE_NS" logs "$pod" -c holder >"$NODE_SCOPE/holder.log"
grep -i 'guard' "$NODE_SCOPE/holder.log" | grep -i 'session' >/dev/null ||
  node_die "the guard's lines are not in the holder's log: $(tail -n 5 "$NODE_SCOPE/holder.log")"
held=$((SECONDS - t0))
node_plugin_exec sh -c 'kill "$(cat /tmp/session.pid)"'
t1=$SECONDS
node_wait 60 "the holder pod to go after the session ended" eval "! kc -n $NODE_NS get pod $pod >/dev/null 2>&1" ||
  node_die "the holder pod did not go after its last session ended"
node_log "guard: held the deletion ${held}s+ while the session lived; the pod went $((SECONDS - t1))s after it ended"
node_figure k8s.guard "waited yes (held ${held}s+ while a session lived, went $((SECONDS - t1)) s after it ended)"

# Control: the DaemonSet's new holder pod (image 2), no session: its deletion is not held.
node_wait 90 "the new holder pod Ready" kc -n "$NODE_NS" wait --for=condition=Ready pod -l app.kubernetes.io/name=netns-holder --timeout=1s ||
  node_die "the DaemonSet made no new holder pod"
pod=$(node_holder_pod)
t0=$SECONDS
kc -n "$NODE_NS" delete pod "$pod" --wait=true --timeout=60s >/dev/null || node_die "an idle holder's deletion was held"
[ $((SECONDS - t0)) -lt 12 ] || node_die "an idle holder took $((SECONDS - t0))s to go"
node_figure k8s.guard.control "no session: went in $((SECONDS - t0)) s"
