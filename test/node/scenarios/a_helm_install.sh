# shellcheck shell=bash
# The project's chart installed with the real helm against the real API server, in both modes: the
# holder DaemonSet Ready; the kubelet applied the chart's securityContext (read by the holder
# process's own /proc: no capabilities, no new privileges, seccomp, read-only root); the files
# published in the kubelet's plugin directory name the pod's own namespace, with the storage
# network (eth1); helm uninstall withdraws them (the lock stays, as documented). Control: the same
# readings of a pod without the chart's securityContext show capabilities and a writable root.
dir=$(node_holder_dir)
kc get namespace "$NODE_NS" >/dev/null 2>&1 || kc create namespace "$NODE_NS" >/dev/null
# The pause image (catatonit -P) runs until stopped.
kc -n "$NODE_NS" run plain --image=localhost/nhk-pause:1 --image-pull-policy=Never --restart=Never \
  --overrides='{"spec": {"automountServiceAccountToken": false}}' >/dev/null
kc -n "$NODE_NS" wait --for=condition=Ready pod/plain --timeout=90s >/dev/null || node_die "the control pod is not Ready: $(kc -n "$NODE_NS" describe pod plain | tail -n 10)"
pid=$(node_container_pid "$NODE_NS" plain)
cap=$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")
[ "$cap" != 0000000000000000 ] || node_die "control: a pod without the chart's securityContext has no capabilities either: the check cannot tell"
root_opts=$(awk '$5 == "/" {print $6}' "/proc/$pid/mountinfo" | tail -n 1)
[[ ,$root_opts, != *,ro,* ]] || node_die "control: a pod without readOnlyRootFilesystem has a read-only root too: the check cannot tell"
kc -n "$NODE_NS" delete pod plain --grace-period=1 --wait=true --timeout=60s >/dev/null
node_figure k8s.helm_install.control "a pod without the chart's securityContext: CapEff $cap, root writable"
for mode in symlink socket; do
  node_install_holders "$mode"
  pod=$(node_holder_pod)
  pid=$(node_container_pid "$NODE_NS" "$pod" holder) || node_die "no PID for the holder container of $pod"
  [ -n "$pid" ] || node_die "containerd lists no task for $pod's holder container"
  status=/proc/$pid/status
  [ "$(awk '/^CapEff:/ {print $2}' "$status")" = 0000000000000000 ] || node_die "$mode: the holder (pid $pid) has capabilities: $(grep ^Cap "$status")"
  [ "$(awk '/^CapBnd:/ {print $2}' "$status")" = 0000000000000000 ] || node_die "$mode: the holder's bounding set is not empty: $(grep ^CapBnd "$status")"
  [ "$(awk '/^NoNewPrivs:/ {print $2}' "$status")" = 1 ] || node_die "$mode: allowPrivilegeEscalation false not applied (NoNewPrivs)"
  [ "$(awk '/^Seccomp:/ {print $2}' "$status")" = 2 ] || node_die "$mode: seccomp RuntimeDefault not applied: $(grep ^Seccomp "$status")"
  root_opts=$(awk '$5 == "/" {print $6}' "/proc/$pid/mountinfo" | tail -n 1)
  [[ ,$root_opts, == *,ro,* ]] || node_die "$mode: the holder's root is not read-only ($root_opts)"
  # hostPID in symlink mode only: the holder's pid namespace is the host's exactly then.
  if [ "$mode" = symlink ]; then
    [ "$(stat -L -c %i "/proc/$pid/ns/pid")" = "$(stat -L -c %i /proc/self/ns/pid)" ] || node_die "symlink mode: the holder is not in the host's pid namespace"
    [ -L "$dir/$NODE_CLUSTER.net.ns" ] || node_die "symlink mode: no $dir/$NODE_CLUSTER.net.ns"
    [ "$(stat -L -c %i "$dir/$NODE_CLUSTER.net.ns")" = "$(stat -L -c %i "/proc/$pid/ns/net")" ] || node_die "the published link is not the holder's namespace"
    published=$(readlink "$dir/$NODE_CLUSTER.net.ns")
  else
    [ "$(stat -L -c %i "/proc/$pid/ns/pid")" != "$(stat -L -c %i /proc/self/ns/pid)" ] || node_die "socket mode: the holder is in the host's pid namespace"
    [ -S "$dir/$NODE_CLUSTER.net.sock" ] || node_die "socket mode: no $dir/$NODE_CLUSTER.net.sock"
    [ ! -e "$dir/$NODE_CLUSTER.net.ns" ] || node_die "socket mode published a link"
    # The namespace the socket hands out, asked by the node's own executor.
    ino=$("$NODE_EXEC_BIN" run --socket "$dir/$NODE_CLUSTER.net.sock" -- stat -L -c %i /proc/self/ns/net) ||
      node_die "netns-exec could not use the holder's socket"
    [ "$ino" = "$(stat -L -c %i "/proc/$pid/ns/net")" ] || node_die "the socket handed out namespace $ino, not the holder's"
    published=$dir/$NODE_CLUSTER.net.sock
  fi
  # The pod's namespace, made by containerd and wired by the CNI plugins: the storage network on eth1.
  nsenter -t "$pid" -n ip -4 -o addr show eth1 | grep -F ' 198.18.14' >/dev/null ||
    node_die "$mode: the holder's namespace has no storage address on eth1: $(nsenter -t "$pid" -n ip -br addr)"
  node_log "$mode: holder pod $pod, pid $pid, no capabilities, read-only root, published $published"
  node_uninstall_holders
  [ ! -e "$dir/$NODE_CLUSTER.net.ns" ] && [ ! -e "$dir/$NODE_CLUSTER.net.sock" ] || node_die "$mode: files left after helm uninstall: $(ls "$dir")"
  [ -e "$dir/$NODE_CLUSTER.lock" ] || node_die "$mode: the lock went too (a holder never deletes it)"
  node_figure "k8s.helm_install.$mode" "holder Ready, CapEff 0, NoNewPrivs, seccomp, read-only root, published and withdrawn"
done
