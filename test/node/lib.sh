# shellcheck shell=bash
# The real Kubernetes node of the node suite (test/node/README.md): etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, containerd with Debian's CNI plugins, and a kubelet,
# started and stopped by PID from one run directory. Sourced by fixture.sh and scenario.sh.
#
# The network (LAB.md's rules: 198.18.0.0/15 only, nothing leaves the machine):
#   pod network      bridge nhk-pod0 198.18.128.1/20 in the root namespace (the node's IP, on the
#                    bridge: no dummy links here); pods get eth0 from host-local, no gateway, no
#                    masquerade, so no forwarding
#   storage network  bridge nhk-st0, no address in the root namespace; every pod gets eth1 on it
#                    (containerd attaches the first two CNI configurations: the stand-in for a
#                    Multus attachment), host-local 198.18.144.0/20
#   services         198.18.160.0/20 (no kube-proxy: nothing uses them)
#   the root namespace's 198.18.0.0/15 is unreachable (metric 4242) while the node runs
# apiserver and etcd listen on 127.0.0.1; the kubelet on the node IP.
set -Eeuo pipefail

NODE_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.sh
. "$NODE_LIB/versions.sh"
NODE_NAME=nhk-node
NODE_IP=198.18.128.1
NODE_POD_CIDR=198.18.128.0/20
NODE_STORAGE_CIDR=198.18.144.0/20
NODE_SERVICE_CIDR=198.18.160.0/20
NODE_POD_BRIDGE=nhk-pod0
NODE_STORAGE_BRIDGE=nhk-st0
NODE_ETCD_PORT=23791
NODE_ETCD_PEER_PORT=23801
NODE_API_PORT=26443
NODE_KUBELET_PORT=10250
# The sysctls the kubelet sets (LAB.md) and the bridge ones the CNI plugin may touch: saved at
# start, restored at the end.
NODE_SYSCTLS=(vm.overcommit_memory kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
  kernel.keys.root_maxbytes net.ipv4.ip_forward)

node_log() { echo "node: $*" >&2; }
node_die() { node_log "FAIL: $*"; exit 1; }

# The run directory (NODE_RUN) of the running node, from the state file in the build tree.
node_load() {
  : "${NODE_STATE_FILE:?set by ctest}"
  [ -f "$NODE_STATE_FILE" ] || node_die "no node is running ($NODE_STATE_FILE is missing: the fixture test node.setup did not run)"
  # shellcheck disable=SC1090
  . "$NODE_STATE_FILE"
  export NODE_RUN KUBECONFIG=$NODE_RUN/admin.kubeconfig
  PATH=$NETNS_K8S_BIN_DIR:$PATH
}

kc() { "$NETNS_K8S_BIN_DIR/kubectl" --kubeconfig "$NODE_RUN/admin.kubeconfig" "$@"; }

# node_start NAME CMD...: runs CMD in the background with its log in $NODE_RUN/log/NAME.log and
# records its PID and start time (so a later stop never signals a recycled PID).
node_start() {
  local name=$1
  shift
  "$@" >>"$NODE_RUN/log/$name.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid $(cut -d' ' -f22 "/proc/$pid/stat")" >"$NODE_RUN/pids/$name"
}

# node_pid_alive FILE: the recorded process still runs (same PID, same start time).
node_pid_alive() {
  local pid start
  read -r pid start <"$1" || return 1
  [ -r "/proc/$pid/stat" ] && [ "$(cut -d' ' -f22 "/proc/$pid/stat" 2>/dev/null)" = "$start" ]
}

# node_stop NAME [GRACE]: TERM, GRACE seconds (default 10), then KILL; by recorded PID.
node_stop() {
  local f=$NODE_RUN/pids/$1 grace=${2:-10} pid i
  [ -f "$f" ] || return 0
  if node_pid_alive "$f"; then
    read -r pid _ <"$f"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < grace * 10; i++)); do node_pid_alive "$f" || break; sleep 0.1; done
    if node_pid_alive "$f"; then
      node_log "$1 (pid $pid) did not stop in ${grace}s: KILL"
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do node_pid_alive "$f" || break; sleep 0.1; done
    fi
  fi
  rm -f "$f"
}

# node_wait SECONDS WHAT CMD...: polls CMD every 0.2 s until it succeeds or SECONDS pass.
node_wait() {
  local limit=$1 what=$2 end
  shift 2
  end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$end" ] || { node_log "timed out after ${limit}s waiting for $what"; return 1; }
    sleep 0.2
  done
}

node_port_free() { ! ss -Hltn "sport = :$1" | grep . >/dev/null; }

node_certs() {
  local d=$NODE_RUN/pki
  mkdir -p "$d"
  # The service-account signing key; the apiserver makes its own self-signed serving certificate.
  openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
  openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  # Static tokens: the admin and the node. Authorization is AlwaysAllow: one trusted node.
  local admin node
  admin=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  node=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  printf '%s,admin,admin,system:masters\n%s,system:node:%s,node,system:nodes\n' "$admin" "$node" "$NODE_NAME" >"$d/tokens.csv"
  chmod 600 "$d/tokens.csv"
  local who tok
  for who in admin kubelet; do
    tok=$admin
    [ "$who" = kubelet ] && tok=$node
    cat >"$NODE_RUN/$who.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: nhk
  cluster:
    server: https://127.0.0.1:$NODE_API_PORT
    insecure-skip-tls-verify: true
users:
- name: $who
  user:
    token: $tok
contexts:
- name: nhk
  context: {cluster: nhk, user: $who}
current-context: nhk
EOF
    chmod 600 "$NODE_RUN/$who.kubeconfig"
  done
}

node_cni_config() {
  mkdir -p "$NODE_RUN/cni/conf" "$NODE_RUN/cni/ipam"
  cat >"$NODE_RUN/cni/conf/10-pod.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "nhk-pod", "plugins": [
  {"type": "bridge", "bridge": "$NODE_POD_BRIDGE", "isGateway": false, "ipMasq": false, "hairpinMode": false,
   "ipam": {"type": "host-local", "dataDir": "$NODE_RUN/cni/ipam",
            "ranges": [[{"subnet": "$NODE_POD_CIDR", "rangeStart": "198.18.128.10"}]]}}]}
EOF
  cat >"$NODE_RUN/cni/conf/20-storage.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "nhk-storage", "plugins": [
  {"type": "bridge", "bridge": "$NODE_STORAGE_BRIDGE", "isGateway": false, "ipMasq": false, "hairpinMode": false,
   "ipam": {"type": "host-local", "dataDir": "$NODE_RUN/cni/ipam",
            "ranges": [[{"subnet": "$NODE_STORAGE_CIDR", "rangeStart": "198.18.144.10"}]]}}]}
EOF
}

node_containerd_config() {
  cat >"$NODE_RUN/containerd.toml" <<EOF
version = 2
root = "$NODE_RUN/containerd/root"
state = "$NODE_RUN/containerd/state"
[grpc]
  address = "$NODE_RUN/containerd.sock"
[ttrpc]
  address = "$NODE_RUN/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/nhk-pause:1"
  # Without CAP_SYS_RESOURCE runc cannot lower oom_score_adj (LAB.md).
  restrict_oom_score_adj = true
  # The pods' network namespaces under the run directory, not /run/netns.
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$NODE_RUN/cni/conf"
    # eth0: the pod network; eth1: the storage network (the stand-in for Multus).
    max_conf_num = 2
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
EOF
}

node_kubelet_config() {
  cat >"$NODE_RUN/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: $NODE_KUBELET_PORT
readOnlyPort: 0
healthzPort: 0
# cgroup v1 hybrid here (LAB.md).
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$NODE_RUN/containerd.sock
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
failSwapOn: false
resolvConf: ""
clusterDomain: ""
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "1Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
enforceNodeAllocatable: []
cgroupsPerQOS: true
syncFrequency: 5s
fileCheckFrequency: 5s
nodeStatusUpdateFrequency: 5s
volumeStatsAggPeriod: 0s
EOF
}

# node_image NAME ROOTFS [ENTRYPOINT...]: an OCI image of the tree ROOTFS (umoci), imported into
# containerd's k8s.io namespace as localhost/NAME.
node_image() {
  local name=$1 rootfs=$2 work tag=${1##*:}
  shift 2
  work=$(mktemp -d "$NODE_RUN/image.XXXXXX")
  umoci init --layout "$work/oci" >/dev/null
  umoci new --image "$work/oci:$tag" >/dev/null
  tar -C "$rootfs" --owner=0 --group=0 --numeric-owner -cf "$work/layer.tar" .
  umoci raw add-layer --image "$work/oci:$tag" "$work/layer.tar" >/dev/null
  local args=(--image "$work/oci:$tag" --config.workingdir /)
  local e
  for e in "$@"; do args+=(--config.entrypoint "$e"); done
  umoci config "${args[@]}" >/dev/null
  tar -C "$work/oci" -cf "$work/image.tar" .
  ctr -a "$NODE_RUN/containerd.sock" -n k8s.io images import --base-name "localhost/${name%%:*}" \
    "$work/image.tar" >/dev/null
  rm -rf "$work"
}

# The sysctls' values before the node started, restored by node_down.
node_save_sysctls() {
  local s
  : >"$NODE_RUN/sysctls"
  for s in "${NODE_SYSCTLS[@]}"; do
    [ -e "/proc/sys/${s//.//}" ] || continue
    echo "$s=$(cat "/proc/sys/${s//.//}")" >>"$NODE_RUN/sysctls"
  done
}

node_restore_sysctls() {
  local line
  [ -f "$NODE_RUN/sysctls" ] || return 0
  while IFS= read -r line; do
    sysctl -q -w "$line" >/dev/null || node_log "could not restore $line"
  done <"$NODE_RUN/sysctls"
}

# node_up: everything, in order; the node is Ready when it returns.
node_up() {
  local t0=$SECONDS b
  for b in "${NETNS_K8S_BINARIES[@]}"; do
    [ -x "$NETNS_K8S_BIN_DIR/$b" ] || node_die "$NETNS_K8S_BIN_DIR/$b is missing: ./dev setup builds Kubernetes $NETNS_K8S_VERSION (scripts/setup.d/kubernetes.sh)"
  done
  for b in containerd ctr umoci openssl /usr/lib/cni/bridge /usr/lib/cni/host-local; do
    command -v "$b" >/dev/null || node_die "$b is missing: ./dev setup installs containerd, containernetworking-plugins, umoci and openssl"
  done
  for b in $NODE_ETCD_PORT $NODE_ETCD_PEER_PORT $NODE_API_PORT $NODE_KUBELET_PORT; do
    node_port_free "$b" || node_die "TCP port $b is in use (ss -ltnp 'sport = :$b'); the node needs it"
  done
  for b in "$NODE_POD_BRIDGE" "$NODE_STORAGE_BRIDGE"; do
    ! ip link show "$b" >/dev/null 2>&1 || node_die "a link $b already exists (another node runs, or one was left behind: test/node/fixture.sh down)"
  done
  # The kubelet makes its pods' cgroups under kubepods in every hierarchy; another kubelet's must
  # not be there (the clean-up removes that tree).
  ! ls -d /sys/fs/cgroup/*/kubepods >/dev/null 2>&1 || node_die "cgroups named kubepods exist ($(ls -d /sys/fs/cgroup/*/kubepods | head -n 2 | tr '\n' ' ')): another kubelet runs on this machine"
  mkdir -p "$NODE_RUN"/{pids,log,etcd,kubelet}
  # From here on, what this run makes is this run's to remove (node_down removes only what a flag
  # file here says it made: a node that failed its checks above must not touch another's).
  touch "$NODE_RUN/cgroups-ours"
  node_save_sysctls
  # Nothing on 198.18.0.0/15 leaves the machine while the node runs.
  if ! ip route show table main exact 198.18.0.0/15 | grep unreachable >/dev/null; then
    ip route add unreachable 198.18.0.0/15 metric 4242
    touch "$NODE_RUN/route-added"
  fi
  # The node's address is the pod bridge's (the bridge plugin finds it there and keeps it).
  touch "$NODE_RUN/bridges-ours"
  ip link add "$NODE_POD_BRIDGE" type bridge
  ip addr add "$NODE_IP/20" dev "$NODE_POD_BRIDGE"
  ip link set "$NODE_POD_BRIDGE" up
  ip link add "$NODE_STORAGE_BRIDGE" type bridge
  ip link set "$NODE_STORAGE_BRIDGE" up
  # The kubelet directory shared, so that the plugin's Bidirectional mounts reach the host.
  mount --bind "$NODE_RUN/kubelet" "$NODE_RUN/kubelet"
  mount --make-rshared "$NODE_RUN/kubelet"
  node_certs
  node_cni_config
  node_containerd_config
  node_kubelet_config

  node_start etcd "$NETNS_K8S_BIN_DIR/etcd" --name nhk --data-dir "$NODE_RUN/etcd" \
    --listen-client-urls "http://127.0.0.1:$NODE_ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$NODE_ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$NODE_ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$NODE_ETCD_PEER_PORT" \
    --initial-cluster "nhk=http://127.0.0.1:$NODE_ETCD_PEER_PORT"
  node_start containerd containerd --config "$NODE_RUN/containerd.toml"
  node_start apiserver "$NETNS_K8S_BIN_DIR/kube-apiserver" --etcd-servers "http://127.0.0.1:$NODE_ETCD_PORT" \
    --bind-address 127.0.0.1 --secure-port "$NODE_API_PORT" --advertise-address "$NODE_IP" \
    --cert-dir "$NODE_RUN/pki/apiserver" --token-auth-file "$NODE_RUN/pki/tokens.csv" \
    --authorization-mode AlwaysAllow --allow-privileged \
    --service-cluster-ip-range "$NODE_SERVICE_CIDR" \
    --service-account-issuer https://nhk.invalid --service-account-key-file "$NODE_RUN/pki/sa.pub" \
    --service-account-signing-key-file "$NODE_RUN/pki/sa.key" \
    --kubelet-preferred-address-types InternalIP --enable-priority-and-fairness=false
  node_wait 60 "containerd's socket" test -S "$NODE_RUN/containerd.sock" || node_die "containerd did not start: $(tail -n 5 "$NODE_RUN/log/containerd.log")"
  # The images while the apiserver starts: the pause image (catatonit -P, static) first.
  node_make_images
  node_wait 90 "the apiserver" kc get --raw /readyz || node_die "the apiserver is not ready: $(tail -n 5 "$NODE_RUN/log/apiserver.log")"
  node_start controller-manager "$NETNS_K8S_BIN_DIR/kube-controller-manager" --kubeconfig "$NODE_RUN/admin.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 0 --leader-elect=false \
    --service-account-private-key-file "$NODE_RUN/pki/sa.key" --use-service-account-credentials=false
  node_start scheduler "$NETNS_K8S_BIN_DIR/kube-scheduler" --kubeconfig "$NODE_RUN/admin.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 0 --leader-elect=false
  # No iptables on the kubelet's PATH: it then adds no rules to the host (LAB.md).
  node_start kubelet env PATH=/usr/local/bin:/usr/bin:/bin "$NETNS_K8S_BIN_DIR/kubelet" \
    --config "$NODE_RUN/kubelet.yaml" --kubeconfig "$NODE_RUN/kubelet.kubeconfig" \
    --root-dir "$NODE_RUN/kubelet" --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" \
    --cert-dir "$NODE_RUN/pki/kubelet"
  node_wait 120 "node $NODE_NAME Ready" kc wait --for=condition=Ready "node/$NODE_NAME" --timeout=1s ||
    node_die "node $NODE_NAME is not Ready: $(tail -n 5 "$NODE_RUN/log/kubelet.log")"
  node_wait 60 "the default service account" kc -n default get serviceaccount default
  echo "$((SECONDS - t0))" >"$NODE_RUN/ready-seconds"
  node_log "node $NODE_NAME Ready in $((SECONDS - t0))s (run directory $NODE_RUN)"
}

# The images the pods run, made from the build tree the way the e2e suite's pods are
# (manifests/images/rootfs.sh): the pause image, the holder image (and a second tag for the
# upgrade), and the plugin image's tree (netns-exec; the rest of the plugin's userspace is the
# host's /usr, mounted read-only, as the e2e's plugin pods have it).
node_make_images() {
  local rootfs work
  rootfs=$NODE_LIB/../../manifests/images/rootfs.sh
  work=$NODE_RUN/trees
  mkdir -p "$work/pause"
  install -m 0755 /usr/bin/catatonit "$work/pause/catatonit"
  # catatonit -P: the pause process (Debian's catatonit is static).
  node_image nhk-pause:1 "$work/pause" /catatonit -P
  : "${NODE_HOLDER_BIN:?set by ctest}" "${NODE_HOLDER_NEXT_BIN:?set by ctest}" "${NODE_EXEC_BIN:?set by ctest}"
  "$rootfs" holder "$work/holder" "$NODE_HOLDER_BIN" "$NODE_EXEC_BIN" >"$NODE_RUN/log/images.log" 2>&1
  node_image netns-holder:1 "$work/holder"
  "$rootfs" holder "$work/holder-next" "$NODE_HOLDER_NEXT_BIN" "$NODE_EXEC_BIN" >>"$NODE_RUN/log/images.log" 2>&1
  node_image netns-holder:2 "$work/holder-next"
  "$rootfs" plugin "$work/plugin" "$NODE_EXEC_BIN" >>"$NODE_RUN/log/images.log" 2>&1
  # The plugin's own userspace is the host's /usr (mounted by the pod): the tree holds the
  # merged-/usr links and the mount points.
  mkdir -p "$work/plugin"/{usr,etc,proc,sys,dev,tmp,run,var}
  ln -s usr/bin "$work/plugin/bin"
  ln -s usr/sbin "$work/plugin/sbin"
  ln -s usr/lib "$work/plugin/lib"
  ln -s usr/lib64 "$work/plugin/lib64"
  node_image netns-plugin:1 "$work/plugin"
}

# node_down: everything the node started or made, whatever state it is in.
node_down() {
  [ -n "${NODE_RUN:-}" ] && [ -d "$NODE_RUN" ] || return 0
  # The pods first, through the kubelet, so that CNI DEL removes their links and addresses.
  if [ -f "$NODE_RUN/pids/kubelet" ] && node_pid_alive "$NODE_RUN/pids/kubelet" && [ -f "$NODE_RUN/pids/apiserver" ]; then
    local ns
    for ns in $(kc get ns -o name 2>/dev/null | sed 's|namespace/||' | grep -v '^kube-\|^default$'); do
      kc delete ns "$ns" --wait=false >/dev/null 2>&1 || true
    done
    kc delete pods --all -A --grace-period=1 --wait=false >/dev/null 2>&1 || true
    node_wait 60 "the node's pods to go" node_no_sandboxes || true
  fi
  node_stop kubelet 10
  node_stop scheduler
  node_stop controller-manager
  node_stop apiserver
  node_stop etcd
  # Whatever container is left (a kubelet that died), through containerd; then containerd; then
  # the shims, found by their containerd address (our run directory), killed by PID.
  node_remove_sandboxes
  node_stop containerd 10
  local pid
  for pid in $(node_shim_pids); do kill -KILL "$pid" 2>/dev/null || true; done
  # Mounts under the run directory, deepest first.
  local m
  for m in $(awk -v r="$NODE_RUN" '$5 == r || index($5, r "/") == 1 {print $5}' /proc/self/mountinfo | sort -r); do
    umount -l "$m" 2>/dev/null || node_log "could not unmount $m"
  done
  if [ -f "$NODE_RUN/bridges-ours" ]; then
    ip link del "$NODE_POD_BRIDGE" 2>/dev/null || true
    ip link del "$NODE_STORAGE_BRIDGE" 2>/dev/null || true
  fi
  node_restore_sysctls
  if [ -f "$NODE_RUN/route-added" ]; then
    ip route del unreachable 198.18.0.0/15 metric 4242 2>/dev/null || true
  fi
  node_remove_cgroups
  rm -rf "$NODE_RUN"
}

node_shim_pids() {
  local p
  for p in /proc/[0-9]*; do
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -F -- "-address $NODE_RUN/containerd.sock" >/dev/null && echo "${p#/proc/}"
  done
  return 0
}

node_no_sandboxes() {
  [ -z "$(ctr -a "$NODE_RUN/containerd.sock" -n k8s.io containers ls -q 2>/dev/null)" ]
}

node_remove_sandboxes() {
  [ -S "$NODE_RUN/containerd.sock" ] || return 0
  [ -f "$NODE_RUN/pids/containerd" ] && node_pid_alive "$NODE_RUN/pids/containerd" || return 0
  # Only for a kubelet that died: the containers' tasks killed and removed with ctr. Their CNI DEL
  # does not run then; the veths go with the pod namespaces, whose mounts are under the run
  # directory (netns_mounts_under_state_dir) and are unmounted below.
  local c
  for c in $(ctr -a "$NODE_RUN/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr -a "$NODE_RUN/containerd.sock" -n k8s.io tasks kill -s KILL "$c" >/dev/null 2>&1 || true
  done
  sleep 1
  for c in $(ctr -a "$NODE_RUN/containerd.sock" -n k8s.io containers ls -q 2>/dev/null); do
    ctr -a "$NODE_RUN/containerd.sock" -n k8s.io tasks delete -f "$c" >/dev/null 2>&1 || true
    ctr -a "$NODE_RUN/containerd.sock" -n k8s.io containers delete "$c" >/dev/null 2>&1 || true
  done
}

# The kubelet's cgroups (kubepods in each hierarchy, absent before node_up), deepest first.
node_remove_cgroups() {
  local d
  [ -f "$NODE_RUN/cgroups-ours" ] || return 0
  for d in /sys/fs/cgroup/*/kubepods; do
    [ -d "$d" ] || continue
    find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null || node_log "cgroup $d is not empty: $(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | head -n 3 | tr '\n' ' ')"
  done
}
