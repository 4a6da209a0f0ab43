# shellcheck shell=bash
# Helpers of the node scenarios (sourced after lib.sh).

# node_figure KEY TEXT: a figure line in the e2e figures file (FIGURE KEY: TEXT), replacing that
# key's earlier line.
node_figure() {
  local key=$1 file=${NODE_FIGURES_FILE:?set by ctest}
  shift
  local line="FIGURE $key: $*"
  echo "$line"
  mkdir -p "$(dirname "$file")"
  (
    flock 9
    { [ ! -f "$file" ] || awk -v k="FIGURE $key:" 'index($0, k) != 1' "$file"; echo "$line"; } |
      sort -s -k2,2 >"$file.tmp"
    mv "$file.tmp" "$file"
  ) 9>>"$file.lock"
}

node_helm() { "$("$NODE_LIB/../manifests/find-helm.sh")" --kubeconfig "$NODE_RUN/admin.kubeconfig" "$@"; }
node_kustomize() { "$("$NODE_LIB/../manifests/find-kustomize.sh")" "$@"; }

NODE_NS=ceph-csi
NODE_CLUSTER=nhk-c1
NODE_CHART=$NODE_LIB/../../manifests/chart/netns-holder
NODE_HOLDER_DIR_IN_KUBELET=plugins/rbd.csi.ceph.com

# node_install_holders MODE [helm args...]: the project's chart, with the real helm, one cluster,
# the holder image made by the fixture; returns once the DaemonSet's pod is Ready.
node_install_holders() {
  local mode=$1
  shift
  kc get namespace "$NODE_NS" >/dev/null 2>&1 || kc create namespace "$NODE_NS" >/dev/null
  node_helm install netns "$NODE_CHART" -n "$NODE_NS" --wait --timeout 120s \
    --set mode="$mode" --set image.repository=localhost/netns-holder --set-string image.tag=1 \
    --set kubeletDir="$NODE_RUN/kubelet" --set "clusters[0].id=$NODE_CLUSTER" \
    --set "clusters[0].drivers={rbd.csi.ceph.com}" --set "clusters[0].requireInterfaces={eth1}" \
    --set guardMaxWait=60 "$@" >"$NODE_SCOPE/helm-install.out" 2>&1 ||
    node_die "helm install ($mode) failed: $(tail -n 5 "$NODE_SCOPE/helm-install.out"); pods: $(kc -n "$NODE_NS" get pods -o wide 2>&1)"
  node_wait 60 "the holder pod Ready" kc -n "$NODE_NS" wait --for=condition=Ready pod -l app.kubernetes.io/name=netns-holder --timeout=1s ||
    node_die "no Ready holder pod: $(kc -n "$NODE_NS" describe pods -l app.kubernetes.io/name=netns-holder | tail -n 20)"
}

node_holder_dir() { echo "$NODE_RUN/kubelet/$NODE_HOLDER_DIR_IN_KUBELET"; }
node_holder_pod() { kc -n "$NODE_NS" get pods -l app.kubernetes.io/name=netns-holder -o jsonpath='{.items[0].metadata.name}'; }

# node_container_pid NAMESPACE POD [CONTAINER]: the host PID of a running container's process,
# from containerd (the kubelet's runtime) by the container ID the API reports.
node_container_pid() {
  local id
  id=$(kc -n "$1" get pod "$2" -o json | jq -r --arg c "${3:-}" '.status.containerStatuses[] | select($c == "" or .name == $c) | .containerID' | head -n 1)
  id=${id#containerd://}
  [ -n "$id" ] || return 1
  ctr -a "$NODE_RUN/containerd.sock" -n k8s.io tasks ls | awk -v id="$id" '$1 == id {print $2}'
}

# node_uninstall_holders: the documented order's last steps (design/OPERATIONS.md §6): helm
# uninstall; the pods go (their guard finds no session); the files are withdrawn, the lock stays.
node_uninstall_holders() {
  node_helm uninstall netns -n "$NODE_NS" --wait --timeout 120s >/dev/null
  node_wait 90 "the holder pods to go" node_no_holder_pods || node_die "holder pods remain after helm uninstall: $(kc -n "$NODE_NS" get pods 2>&1)"
}
node_no_holder_pods() { [ -z "$(kc -n "$NODE_NS" get pods -l app.kubernetes.io/name=netns-holder -o name)" ]; }

# node_library_image: the library plugin image of the library-mode scenario, localhost/
# netns-library-plugin:1: the test's stand-in for ceph-csi's patched plugin, netns-library-caller
# (library-caller/main.go, built here statically against this build's libnetns_exec through the
# package netnsexec, as test/abi/go_static_test.sh does) at /usr/local/bin, and no netns-exec:
# no shim and no nsenter of ours anywhere in the image. The rest of the userspace is the host's
# /usr, mounted by the pod, as for netns-plugin:1.
node_library_image() {
  local work=$NODE_SCOPE/library-caller tree=$NODE_SCOPE/library-tree src=$NODE_LIB/../.. go prefix pc
  : "${NODE_BUILD_DIR:?set by ctest}"
  # shellcheck source=../abi/find_go.sh
  . "$src/test/abi/find_go.sh"
  prefix=$work/prefix
  mkdir -p "$work/mod"
  cmake --install "$NODE_BUILD_DIR" --prefix "$prefix" --component netns_exec >/dev/null || node_die "cmake --install --component netns_exec failed"
  pc=$(find "$prefix" -name netns_exec.pc | head -n 1)
  [ -n "$pc" ] || node_die "netns_exec.pc was not installed"
  cp "$NODE_LIB/library-caller/main.go" "$work/mod/main.go"
  cat >"$work/mod/go.mod" <<MOD
module example.com/netns-library-caller

go 1.22

require github.com/netns-holder/netns-holder/executor/go v0.0.0
replace github.com/netns-holder/netns-holder/executor/go => $src/executor/go
MOD
  (
    cd "$work/mod"
    export PKG_CONFIG_PATH=$(dirname "$pc") GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod CGO_ENABLED=1
    # A build cache of its own (Go's keeps pkg-config's -L path of this prefix, removed below).
    export GOCACHE=$NODE_BUILD_DIR/go-cache-node-library GOPATH=$work/gopath GOTMPDIR=$work
    CGO_LDFLAGS="$(pkg-config --static --libs netns_exec)" "$go" build -o "$work/netns-library-caller" \
      -ldflags '-linkmode=external -extldflags=-static' . >"$work/go.log" 2>&1
  ) || node_die "the static build of netns-library-caller failed: $(tail -n 5 "$work/go.log")"
  ! readelf -d "$work/netns-library-caller" | grep '(NEEDED)' >/dev/null || node_die "netns-library-caller is not static"
  rm -rf "$prefix"
  rm -rf "$tree"
  mkdir -p "$tree"/{usr/local/bin,etc,proc,sys,dev,tmp,run,var}
  install -m 0755 "$work/netns-library-caller" "$tree/usr/local/bin/netns-library-caller"
  for d in bin sbin lib lib64; do ln -s "usr/$d" "$tree/$d"; done
  node_image netns-library-plugin:1 "$tree"
}

# node_apply_plugin [socket|library]: a ceph-csi-shaped node plugin DaemonSet (csi-rbdplugin: its volumes, its
# labels) rendered with the real kustomize and the project's component (manifests/kustomize/plugin),
# the plugin image's tree made by the fixture and the host's /usr for the rest of the plugin's
# userspace. The component's liveness-probe sidecar is removed: its image (registry.k8s.io) is not
# on this offline node, and nothing here serves CSI for it to probe. With socket, the socket-mode
# component too (no hostPID). With library, the library component alone (no hostPID, no shim
# environment) and the library plugin image (node_library_image), set as an operator sets the
# patched plugin's: an images entry of the kustomization.
node_apply_plugin() {
  local dir=$NODE_SCOPE/plugin-kustomize components=component/plugin images=
  rm -rf "$dir"
  mkdir -p "$dir/component"
  cp -r "$NODE_LIB/../../manifests/kustomize/plugin" "$NODE_LIB/../../manifests/kustomize/plugin-pod-network-reaches-ceph" \
    "$NODE_LIB/../../manifests/kustomize/socket-mode" "$NODE_LIB/../../manifests/kustomize/library" "$dir/component/"
  [ "${1:-}" = socket ] && components+=", component/socket-mode"
  if [ "${1:-}" = library ]; then
    components=component/library
    images="images: [{name: localhost/netns-plugin, newName: localhost/netns-library-plugin}]"
  fi
  cat >"$dir/base.yaml" <<YAML
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: csi-rbdplugin
  namespace: $NODE_NS
  labels: {app: ceph-csi-rbd, component: nodeplugin}
spec:
  selector:
    matchLabels: {app: ceph-csi-rbd, component: nodeplugin}
  updateStrategy: {type: RollingUpdate}
  template:
    metadata:
      labels: {app: ceph-csi-rbd, component: nodeplugin}
    spec:
      hostNetwork: true
      hostPID: true
      dnsPolicy: ClusterFirstWithHostNet
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: 2
      containers:
        - name: csi-rbdplugin
          image: localhost/netns-plugin:1
          imagePullPolicy: Never
          command: [/usr/bin/sleep, infinity]
          securityContext:
            privileged: true
            capabilities: {add: [SYS_ADMIN]}
            allowPrivilegeEscalation: true
          volumeMounts:
            - {name: socket-dir, mountPath: /csi}
            - {name: plugin-dir, mountPath: $NODE_RUN/kubelet/plugins, mountPropagation: Bidirectional}
            - {name: mountpoint-dir, mountPath: $NODE_RUN/kubelet/pods, mountPropagation: Bidirectional}
            - {name: ceph-csi-config, mountPath: /etc/ceph-csi-config/}
            - {name: host-usr-bin, mountPath: /usr/bin, readOnly: true}
            - {name: host-usr-sbin, mountPath: /usr/sbin, readOnly: true}
            - {name: host-usr-lib, mountPath: /usr/lib, readOnly: true}
            - {name: host-usr-lib64, mountPath: /usr/lib64, readOnly: true}
      volumes:
        - {name: socket-dir, hostPath: {path: $NODE_RUN/kubelet/plugins/rbd.csi.ceph.com, type: DirectoryOrCreate}}
        - {name: plugin-dir, hostPath: {path: $NODE_RUN/kubelet/plugins, type: Directory}}
        - {name: mountpoint-dir, hostPath: {path: $NODE_RUN/kubelet/pods, type: DirectoryOrCreate}}
        - {name: ceph-csi-config, configMap: {name: netns-ceph-csi, items: [{key: config.json, path: config.json}]}}
        - {name: host-usr-bin, hostPath: {path: /usr/bin}}
        - {name: host-usr-sbin, hostPath: {path: /usr/sbin}}
        - {name: host-usr-lib, hostPath: {path: /usr/lib}}
        - {name: host-usr-lib64, hostPath: {path: /usr/lib64}}
YAML
  cat >"$dir/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [base.yaml]
components: [$components]
$images
configMapGenerator:
  - name: netns-exec-plugin-network
    literals: [networks=$NODE_NS/nhk-storage]
patches:
  - target: {kind: DaemonSet, name: csi-rbdplugin}
    patch: |
      - op: remove
        path: /spec/template/spec/containers/0/livenessProbe
      - op: remove
        path: /spec/template/spec/containers/0/ports
  - target: {kind: DaemonSet, name: csi-rbdplugin}
    patch: |
      apiVersion: apps/v1
      kind: DaemonSet
      metadata: {name: csi-rbdplugin}
      spec:
        template:
          spec:
            containers:
              - {name: liveness-probe, \$patch: delete}
YAML
  node_kustomize build "$dir" >"$dir/rendered.yaml" || node_die "kustomize build of the plugin failed"
  # What the component must have done, read from the rendered object.
  local ds
  ds=$(yq_ds "$dir/rendered.yaml")
  [ "$(jq -r '.spec.template.spec.hostNetwork' <<<"$ds")" = false ] || node_die "the component left hostNetwork on"
  [ "$(jq -r '.spec.template.spec.hostPID' <<<"$ds")" = "$([ "${1:-}" = symlink ] || [ -z "${1:-}" ] && echo true || echo false)" ] ||
    node_die "hostPID is $(jq -r '.spec.template.spec.hostPID' <<<"$ds") in the rendered plugin (${1:-symlink} mode)"
  if [ "${1:-}" = library ]; then
    ! jq -e '[.spec.template.spec.containers[0].env[]? | select(.name | startswith("NETNS_EXEC_"))] | length > 0' <<<"$ds" >/dev/null ||
      node_die "the library component left the shims' environment: $(jq -c '.spec.template.spec.containers[0].env' <<<"$ds")"
    [ "$(jq -r '.spec.template.spec.containers[0].image' <<<"$ds")" = localhost/netns-library-plugin:1 ] ||
      node_die "the plugin's image is not the library plugin image"
  else
    jq -e '.spec.template.spec.containers[0].env[] | select(.name == "NETNS_EXEC_HELD_CLUSTERS")' <<<"$ds" >/dev/null ||
      node_die "the component added no NETNS_EXEC_HELD_CLUSTERS"
  fi
  kc apply -f "$dir/rendered.yaml" >/dev/null
  node_wait 90 "the plugin pod Ready" node_plugin_ready || node_die "no Ready plugin pod: $(kc -n "$NODE_NS" describe pods -l app=ceph-csi-rbd | tail -n 20)"
}
# The DaemonSet of a rendered multi-document YAML, as JSON (kubectl reads YAML without a server).
yq_ds() { kc create --dry-run=client -f "$1" -o json | jq -c 'if .kind == "List" then .items[] else . end | select(.kind == "DaemonSet")'; }

node_plugin_ready() {
  local pod
  pod=$(node_plugin_pod) || return 1
  [ -n "$pod" ] && [ "$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ] &&
    [ -z "$(kc -n "$NODE_NS" get pod "$pod" -o jsonpath='{.metadata.deletionTimestamp}')" ]
}
node_plugin_pod() {
  kc -n "$NODE_NS" get pods -l app=ceph-csi-rbd -o json |
    jq -r '[.items[] | select(.metadata.deletionTimestamp == null)][0].metadata.name // empty'
}
# node_plugin_exec CMD...: runs CMD in the plugin's container (kubectl exec, through the kubelet).
node_plugin_exec() { kc -n "$NODE_NS" exec "$(node_plugin_pod)" -c csi-rbdplugin -- "$@"; }

# node_start_far_end: a pod on the storage network standing for the far side of the flows: the
# peer of the vxlan links, pinging, and a TCP listener on 6789 (a monitor's port, so that a
# connection to it counts as a Ceph session for the guard).
node_start_far_end() {
  kc -n "$NODE_NS" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: far, namespace: $NODE_NS}
spec:
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 1
  containers:
    - name: far
      image: localhost/netns-plugin:1
      imagePullPolicy: Never
      command: [/usr/bin/sleep, infinity]
      securityContext: {privileged: true}
      volumeMounts: &usr
        - {name: host-usr-bin, mountPath: /usr/bin, readOnly: true}
        - {name: host-usr-sbin, mountPath: /usr/sbin, readOnly: true}
        - {name: host-usr-lib, mountPath: /usr/lib, readOnly: true}
        - {name: host-usr-lib64, mountPath: /usr/lib64, readOnly: true}
    - name: mon
      image: localhost/netns-plugin:1
      imagePullPolicy: Never
      command:
        - /usr/bin/python3
        - -c
        - |
          import socket, threading
          s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
          s.bind(("0.0.0.0", 6789)); s.listen(16)
          def hold(c):
              while c.recv(4096): pass
          while True:
              c, _ = s.accept(); threading.Thread(target=hold, args=(c,), daemon=True).start()
      volumeMounts: *usr
  volumes:
    - {name: host-usr-bin, hostPath: {path: /usr/bin}}
    - {name: host-usr-sbin, hostPath: {path: /usr/sbin}}
    - {name: host-usr-lib, hostPath: {path: /usr/lib}}
    - {name: host-usr-lib64, hostPath: {path: /usr/lib64}}
YAML
  kc -n "$NODE_NS" wait --for=condition=Ready pod/far --timeout=90s >/dev/null || node_die "the far-end pod is not Ready: $(kc -n "$NODE_NS" describe pod far | tail -n 15)"
  NODE_FAR_IP=$(node_far_exec ip -4 -o addr show eth1 | awk '{print $4}' | cut -d/ -f1)
  [ -n "$NODE_FAR_IP" ] || node_die "the far-end pod has no storage address"
}
node_far_exec() { kc -n "$NODE_NS" exec far -c far -- "$@"; }

# node_flow_create SIDE VNI SIDE_IP SIDE_ADDR FAR_ADDR: a vxlan link (VNI) between the far end and
# SIDE — "holder" (made by the plugin through the executor, so in the holder's namespace) or
# "plugin" (made by the plugin in its own namespace) — whose storage address is SIDE_IP; the
# overlay's /30 has SIDE_ADDR on SIDE and FAR_ADDR at the far end.
node_flow_create() {
  local side=$1 vni=$2 side_ip=$3 side_addr=$4 far_addr=$5 link=nhkvx$2
  local make="ip link add $link type vxlan id $vni remote $NODE_FAR_IP dstport 4789 dev eth1 && ip addr add $side_addr/30 dev $link && ip link set $link up"
  if [ "$side" = holder ]; then
    node_plugin_exec netns-exec run --cluster-id "$NODE_CLUSTER" -- sh -c "$make"
    # The link is in the holder's namespace, not in the plugin's.
    ! node_plugin_exec ip link show "$link" >/dev/null 2>&1 || node_die "$link was made in the plugin's own namespace"
    node_plugin_exec netns-exec run --cluster-id "$NODE_CLUSTER" -- ip link show "$link" >/dev/null || node_die "$link is not in the holder's namespace"
  else
    node_plugin_exec sh -c "$make"
  fi
  node_far_exec sh -c "ip link add $link type vxlan id $vni remote $side_ip dstport 4789 dev eth1 && ip addr add $far_addr/30 dev $link && ip link set $link up"
}

# node_ping_start NAME ADDR: the far end pings ADDR every 0.2 s until node_ping_stop NAME.
node_ping_start() {
  kc -n "$NODE_NS" exec far -c far -- sh -c "echo \$\$ >/tmp/ping-$1.pid; exec ping -i 0.2 -W 1 $2" >"$NODE_SCOPE/ping-$1.out" 2>&1 &
  echo $! >"$NODE_SCOPE/ping-$1.kubectl"
  node_wait 10 "ping $1 to start" node_far_exec test -s "/tmp/ping-$1.pid" || node_die "ping $1 did not start"
}

# node_ping_stop NAME: stops that ping (SIGINT, by its PID) and prints "SENT RECEIVED".
node_ping_stop() {
  node_far_exec sh -c "kill -INT \$(cat /tmp/ping-$1.pid)"
  wait "$(cat "$NODE_SCOPE/ping-$1.kubectl")" || true
  sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' "$NODE_SCOPE/ping-$1.out" | grep . ||
    node_die "ping $1 printed no summary: $(tail -n 3 "$NODE_SCOPE/ping-$1.out")"
}
