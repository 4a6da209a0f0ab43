# shellcheck shell=bash
# The node's networking, wired the way a CNI plugin and Multus would, entirely inside namespaces
# this harness creates (the root namespace routes 198.18.0.0/15 off the machine, so nothing here
# gives it an address or a route):
#
#   node namespace   "<id>-node": bridge cni0 198.19.0.1/17 — the pod network. No route to storage.
#   pod namespace    eth0 (veth, peer on cni0) 198.19.x.y/17 — no default route, so a pod reaches
#                    nothing but other pods: no storage network but through a Multus interface.
#   Multus interface net1 (veth, peer on the cluster's storage0 bridge) — for pods that reach a
#                    storage network: the holder, and the plugin (ceph-csi opens its own RADOS
#                    connection), which has net1 and net2 for the node's first and second cluster.
#
# Veth pairs are created with both ends already inside their namespaces, so no interface ever
# appears in the root namespace, and names only need to be unique within each namespace.
#
# Needs common.sh. E2E_RUN (run directory) and E2E_ID (short unique prefix) must be set.

E2E_POD_NET=198.19.0.0
E2E_POD_PREFIX=17

# e2e_ip_add A.B.C.D N — the address N after A.B.C.D.
e2e_ip_add() {
  local IFS=. a b c d
  read -r a b c d <<<"$1"
  local n=$((((a << 24) | (b << 16) | (c << 8) | d) + $2))
  echo "$(((n >> 24) & 255)).$(((n >> 16) & 255)).$(((n >> 8) & 255)).$((n & 255))"
}

# A node-wide allocator for pod indexes (pods come and go across scenarios; addresses must not
# collide while both are alive). Serialized with flock; wraps after 30000.
e2e_alloc_index() {
  local file=$E2E_RUN/pod-index
  (
    flock 9
    local n
    n=$(cat "$file" 2>/dev/null || echo 0)
    n=$(((n + 1) % 30000))
    echo "$n" >"$file"
    echo "$n"
  ) 9>>"$E2E_RUN/pod-index.lock"
}

# e2e_node_create SCOPE — the node namespace with the pod bridge.
e2e_node_create() {
  local scope=$1 ns=$E2E_ID-node
  e2e_netns_add "$scope" "$ns"
  ip -n "$ns" link add cni0 type bridge
  ip -n "$ns" addr add "$(e2e_ip_add $E2E_POD_NET 1)/$E2E_POD_PREFIX" dev cni0
  ip -n "$ns" link set cni0 up
  echo "$ns"
}

# e2e_podnet_create SCOPE NAME — a fresh pod sandbox namespace with eth0 on the pod network, as a
# CNI ADD would make it. Prints the namespace name "<id>-<NAME>-<index>" (new on every call, as a
# new sandbox is), and records the pod's address in $E2E_RUN/podnet/<ns>.
e2e_podnet_create() {
  local scope=$1 name=$2 idx ns addr
  idx=$(e2e_alloc_index)
  ns=$E2E_ID-$name-$idx
  addr=$(e2e_ip_add $E2E_POD_NET $((idx + 1)))
  e2e_netns_add "$scope" "$ns"
  ip -n "$ns" link add eth0 type veth peer name "p$idx" netns "$E2E_ID-node"
  ip -n "$E2E_ID-node" link set "p$idx" master cni0 up
  ip -n "$ns" addr add "$addr/$E2E_POD_PREFIX" dev eth0
  ip -n "$ns" link set eth0 up
  mkdir -p "$E2E_RUN/podnet"
  echo "POD_IP=$addr POD_INDEX=$idx" >"$E2E_RUN/podnet/$ns"
  echo "$ns"
}

# e2e_podnet_attach_storage POD_NS CEPH_ENV_FILE [IFNAME] — a Multus-like interface IFNAME (net1
# unless given) on the cluster's storage network. Prints the address given to it.
e2e_podnet_attach_storage() {
  local ns=$1 envfile=$2 ifname=${3:-net1} idx E2E_CEPH_NETNS E2E_CEPH_IP
  # shellcheck disable=SC1090
  . "$envfile"
  idx=$(e2e_alloc_index)
  # Storage networks are /20s; the cluster sits at .1, pods from .16 upwards.
  local addr
  addr=$(e2e_ip_add "$E2E_CEPH_IP" $((15 + idx % 4000)))
  ip -n "$ns" link add "$ifname" type veth peer name "s$idx" netns "$E2E_CEPH_NETNS"
  ip -n "$E2E_CEPH_NETNS" link set "s$idx" master storage0 up
  ip -n "$ns" addr add "$addr/20" dev "$ifname"
  ip -n "$ns" link set "$ifname" up
  # Like a CNI ADD, return once the interface is usable.
  e2e_wait_until 10 "$ifname in $ns to come up" e2e__link_up "$ns" "$ifname" ||
    e2e_die "$ifname in $ns did not come up within 10 s: $(ip -n "$ns" -o link show "$ifname")"
  echo "$addr"
}

e2e__link_up() { ip -n "$1" link show "$2" | grep 'state UP' >/dev/null; }

# e2e_podnet_delete SCOPE NS — CNI DEL plus sandbox removal: the namespace goes, and with it the
# veth pairs (their peers leave the bridges).
e2e_podnet_delete() {
  local scope=$1 ns=$2
  e2e_netns_del "$scope" "$ns"
  rm -f "$E2E_RUN/podnet/$ns"
}
