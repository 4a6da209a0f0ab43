# shellcheck shell=bash
# Uninstall in the documented order (design/OPERATIONS.md §6): the plugin first (its sessions end
# with it), then the check that no session is left in the holder's namespace, then helm uninstall:
# the holder pods go at once, the files are withdrawn, the lock stays.
node_install_holders symlink
node_apply_plugin
node_start_far_end
dir=$(node_holder_dir)
node_plugin_exec sh -c "netns-exec run --cluster-id $NODE_CLUSTER -- bash -c 'exec 3<>/dev/tcp/$NODE_FAR_IP/6789; exec sleep 600' >/dev/null 2>&1 &"
node_wait 10 "a session in the holder's namespace" eval "[ \"\$(\"$NODE_EXEC_BIN\" guard --count --netns $dir/$NODE_CLUSTER.net.ns)\" -ge 1 ]" ||
  node_die "no session in the holder's namespace"
# 1. The plugin goes (back to the host network, in the field): its processes and their sessions end.
kc -n "$NODE_NS" delete ds csi-rbdplugin --wait=true --timeout=60s >/dev/null
node_wait 60 "the plugin pod to go" eval "[ -z \"\$(node_plugin_pod)\" ]" || node_die "the plugin pod did not go"
# 2. Nothing left in the holder's namespace.
node_wait 30 "no session in the holder" eval "[ \"\$(\"$NODE_EXEC_BIN\" guard --count --netns $dir/$NODE_CLUSTER.net.ns)\" = 0 ]" ||
  node_die "sessions remain in the holder's namespace after the plugin went"
# 3. The holders.
t0=$SECONDS
node_uninstall_holders
[ $((SECONDS - t0)) -lt 30 ] || node_die "helm uninstall took $((SECONDS - t0))s: a guard held an idle holder"
[ ! -e "$dir/$NODE_CLUSTER.net.ns" ] || node_die "the link is left after helm uninstall"
[ -e "$dir/$NODE_CLUSTER.lock" ] || node_die "the lock went (a holder never deletes it)"
node_figure k8s.uninstall "plugin, check (0 sessions), helm uninstall: holders gone in $((SECONDS - t0)) s, files withdrawn"
