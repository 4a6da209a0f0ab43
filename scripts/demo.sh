#!/usr/bin/env bash
# The demo (`sudo ./dev demo`): one simulated Kubernetes node with a real Ceph cluster, a
# netns-holder pod and a Ceph CSI plugin pod (real runc containers), in about a minute.
#   scripts/demo.sh BUILD_DIR [--kernel | --cephcsi]
# It shows the field's topology: a plugin pod with its own storage interface (ceph-csi's own RADOS
# connection) whose Ceph sessions run through the executor in the holder's namespace instead
# (`netns-exec inspect` of both namespaces, the address Ceph sees), a plugin restart that a
# kernel-owned flow in the holder survives, and then removes everything it created. Everything stays inside network namespaces it
# creates, on 198.18.0.0/15; nothing leaves the machine.
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../test/e2e/lib/all.sh
. "$here/../test/e2e/lib/all.sh"

build=${1:?usage: scripts/demo.sh BUILD_DIR}
build=$(cd "$build" && pwd)
[ "$(id -u)" -eq 0 ] || e2e_die "the demo creates network namespaces and containers: run it as root (sudo ./dev demo)"

# `./dev demo --kernel`: the real krbd and NVMe/TCP clients, in a VM with Debian's kernel
# (test/kernel): a map (an `nvme connect` to a kernel NVMe/TCP target) through the holder with a
# workload across ten plugin restarts, then the control that stalls. A few minutes under
# software emulation.
# `./dev demo --cephcsi`: the same VM driving the real ceph-csi RBD node plugin (cephcsi v3.12.2,
# built by the set-up) over its CSI socket as a kubelet does, in transparent mode: its volume staged
# through the holder and written across plugin restarts, then unstaged and deleted; and its control
# without a holder, which stalls. About 10 minutes under software emulation.
if [ "${2:-}" = --kernel ] || [ "${2:-}" = --cephcsi ]; then
  rc=0
  tests='krbd_holder|krbd_control|nvme_holder|nvme_control'
  [ "$2" = --kernel ] || tests='cephcsi_transparent_rbd_holder|cephcsi_rbd_control'
  (cd "$build" && ctest -R "^kernel\\.(setup|$tests|cleanup)\$" -V) 2>&1 |
    grep -E '^[0-9]+: (\[e2e|FIGURE|workload|/dev|[a-z]+ ok ms=)|Test +#' || rc=$?
  cat "$build/test/kernel/kernel-figures.txt" 2>/dev/null || true
  exit "$rc"
fi

find_bin() {
  local name=$1 c
  for c in "$build/holder/$name" "$build/executor/cli/$name" "$build/executor/$name"; do
    [ -x "$c" ] && { echo "$c"; return 0; }
  done
  find "$build" -maxdepth 4 -type f -name "$name" -perm -u+x 2>/dev/null | head -n 1
}
has_sub() { e2e_exec_has "$1"; }

E2E_BUILD_DIR=$build
E2E_HOLDER_BIN=$(find_bin netns-holder)
E2E_EXEC_BIN=$(find_bin netns-exec)
E2E_ID=demo$$
E2E_RUN=$(mktemp -d /tmp/nsdemo.XXXXXX)
export E2E_RUN E2E_ID
E2E_STATE_FILE=$E2E_RUN/run.env
printf 'E2E_RUN=%s\nE2E_ID=%s\n' "$E2E_RUN" "$E2E_ID" >"$E2E_STATE_FILE"
e2e_run_load
scope=$E2E_RUN/demo
e2e_scope_new "$scope"

t0=$SECONDS
finish() {
  local rc=$?
  e2e_section "clean up: every container, mount, process and namespace the demo created"
  e2e_scope_cleanup "$scope"
  if grep -q " ${E2E_RUN}[/ ]" /proc/self/mountinfo; then
    echo "mounts remain under $E2E_RUN; left in place" >&2
  else
    rm -rf "$E2E_RUN"
  fi
  echo "namespaces left by the demo: $(ip netns list | grep -c "^$E2E_ID-" || true)"
  if [ "$rc" -eq 0 ]; then
    echo "demo finished in $((SECONDS - t0))s"
  else
    echo "demo FAILED (exit $rc) after $((SECONDS - t0))s"
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

explain() { printf '\n%s\n' "$*" | fold -s -w 100; }
# show WHERE CMD... — print the command as a reader would type it, then run it. WHERE is "host",
# or a pod: the command runs in that pod's container (kubectl exec).
show() {
  local where=$1 line='' arg
  shift
  for arg in "$@"; do
    case $arg in
    *[[:space:]]* | *'&'* | *'$'*) line+=" '$arg'" ;;
    *) line+=" $arg" ;;
    esac
  done
  line=${line# }
  line=${line//"$E2E_PLUGIN_EXEC"/netns-exec}
  line=${line//"$E2E_HOLDER_CMD"/netns-holder}
  case $where in
  host) printf '[host] $ %s\n' "$line"; "$@" ;;
  "$holder") printf '[holder pod] $ %s\n' "$line"; e2e_pod_exec "$where" "$@" ;;
  "$plugin") printf '[plugin pod] $ %s\n' "$line"; e2e_pod_exec "$where" "$@" ;;
  esac
}

cid=ceph-demo
cfg=$E2E_RUN/csi/config.json
conf=$E2E_RUN/c1/ceph.conf
holder=$E2E_ID-holder
plugin=$E2E_ID-plugin

e2e_section "1. A real Ceph cluster on its own storage network"
explain "Ceph 16 from the Debian packages: one monitor and one OSD (memstore), cephx on, all running in
the network namespace $E2E_ID-st1 with the address 198.18.0.1. Only pods with a storage interface
(a Multus attachment) can reach it."
mkdir -p "$E2E_HOLDER_DIR"
e2e_node_create "$scope" >/dev/null
mount --bind "$E2E_KUBELET" "$E2E_KUBELET"
e2e_track_mount "$scope" "$E2E_KUBELET"
mount --make-shared "$E2E_KUBELET"
e2e_ceph_create "$scope" "$E2E_RUN/c1" "$E2E_ID-st1" 198.18.0.1/20 >/dev/null
e2e_ceph "$E2E_RUN/c1" "$E2E_ID-st1" -s

if [ -z "$E2E_HOLDER_BIN" ]; then
  explain "netns-holder is not built in $build yet: the demo stops here."
  exit 0
fi

e2e_section "2. The holder pod: pod network + a Multus-like storage interface"
explain "netns-holder runs as a runc container made from the holder image's file tree (a static
netns-holder, netns-exec for the preStop guard, nothing else), as its DaemonSet runs it: hostPID,
no capabilities, read-only root. Its network namespace is a pod sandbox: eth0 on the pod network
and net1 on the storage network. It publishes that namespace in the hostPath directory the plugin
also mounts."
e2e_holder_start "$scope" "$holder" "$cid" c1
show host ip -n "$E2E_HOLDER_NS" -br addr
show host ls -l "$E2E_HOLDER_DIR"
if [ -f "$E2E_HOLDER_DIR/$cid.holder.json" ]; then
  explain "The identity record: a reader checks the namespace it opened against it (inode, pid, start time)."
  show host jq . "$E2E_HOLDER_DIR/$cid.holder.json"
fi
explain "The readiness probe, run inside the holder's container:"
if show "$holder" "$E2E_HOLDER_CMD" check --cluster-id "$cid" --dir "$E2E_HOLDER_DIR"; then
  echo "-> exit 0: the published files name this very namespace and a live holder"
else
  echo "-> exit $?: the probe fails"
fi

e2e_section "3. The plugin pod: pod network + its own storage interface"
e2e_csi_config "$cfg" "$cid" c1 "$E2E_HOLDER_DIR/$cid.net.ns"
e2e_plugin_start "$scope" "$plugin"
explain "The ceph-csi node plugin runs with pod networking (hostNetwork: false). It opens its own RADOS
connection (NodeStageVolume's RADOS calls, before any map), so in the field its pod has a Multus
attachment to the storage network too: net1 here. Only the kernel's sessions (krbd, kernel CephFS)
must not live in this namespace, because it is torn down with the pod."
show host ip -n "$E2E_PLUGIN_NS" -br addr
explain "A Ceph command run directly in the plugin works, from the plugin's own namespace:"
show "$plugin" ceph -c "$conf" --connect-timeout 5 health
explain "ceph-csi's config names the holder's namespace for this cluster:"
show host jq -c . "$cfg"

if [ -z "$E2E_EXEC_BIN" ] || ! has_sub run; then
  explain "netns-exec is not built in $build yet: the demo stops here."
  exit 0
fi

run() { e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --timeout 60s -- "$@"; }
show_run() { show "$plugin" "$E2E_PLUGIN_EXEC" run --cluster-id "$cid" --config "$cfg" -- "$@"; }

e2e_section "4. Commands through the executor run in the holder's namespace"
explain "netns-exec opens the holder's namespace file once, validates the descriptor (nsfs, a network
namespace, not its own, the holder record matches a live holder), then runs the command in a child
that entered the namespace with setns(CLONE_NEWNET) — nothing else changes. The command sees the
holder's interfaces, not the plugin's:"
show_run ip -br addr
show_run ceph -c "$conf" --connect-timeout 5 -s
show_run rbd -c "$conf" --client-mount-timeout 5 create --size 64 rbd/demo-img
show_run rbd -c "$conf" --client-mount-timeout 5 ls -l rbd

e2e_section "5. Live sessions: in the holder's namespace, none in the plugin's"
explain "A long-running client started through the executor (rbd watch keeps sessions to the monitor
and the OSD). netns-exec inspect reads the holder's namespace from inside (netlink, sock_diag)
without spawning anything:"
mkdir -p "$E2E_KUBELET/demo"
e2e_bg "$scope" watch-exec "$E2E_RUN/watch.log" \
  run sh -c "echo \$\$ >'$E2E_KUBELET/demo/watch.pid'; mkfifo /tmp/stdin.\$\$; exec rbd -c '$conf' --client-mount-timeout 5 watch rbd/demo-img <>/tmp/stdin.\$\$"
watch_pid=$(e2e_pid_from_file "$E2E_KUBELET/demo/watch.pid" 15) || e2e_die "rbd watch did not start"
e2e_track_pid "$scope" rbd-watch "$watch_pid"
e2e_wait_until 20 "Ceph to list the watch" e2e_rbd_watched_from c1 rbd/demo-img "$E2E_HOLDER_ADDR" ||
  e2e_die "Ceph does not list the watch at the holder's address $E2E_HOLDER_ADDR"
inspect_holder() {
  if has_sub inspect; then
    show "$plugin" "$E2E_PLUGIN_EXEC" inspect --cluster-id "$cid" --config "$cfg"
  else
    explain "(netns-exec inspect is not built yet; ss inside the holder's namespace instead)"
    show host nsenter --net="/run/netns/$E2E_HOLDER_NS" -- ss -tn
  fi
}
inspect_holder
explain "The plugin's own namespace, although it reaches the storage network, holds none of them:"
show host nsenter --net="/run/netns/$E2E_PLUGIN_NS" -- ss -tn state established
explain "And Ceph sees the watch come from the holder's storage address ($E2E_HOLDER_ADDR), not the
plugin's ($E2E_PLUGIN_ADDR):"
show host nsenter --net="/run/netns/$E2E_ID-st1" -- rbd -c "$conf" status rbd/demo-img
kill -TERM "$watch_pid"

e2e_section "6. A kernel-owned flow survives a plugin restart"
explain "What must survive a plugin restart is what the kernel owns: krbd's and kernel CephFS's sessions.
This kernel has no rbd/ceph modules, so a vxlan link stands in: its UDP socket belongs to the kernel
and to the namespace the link was created in. The plugin creates it through the executor, in the
holder's namespace; the storage side pings across it, 20 times a second."
st=$E2E_ID-st1
ip -n "$st" link add demo-vx type vxlan id 4242 remote "$E2E_HOLDER_ADDR" dstport 4789 dev storage0
e2e_track_link "$scope" "$st" demo-vx
ip -n "$st" addr add 198.19.200.1/24 dev demo-vx
ip -n "$st" link set demo-vx up
show_run sh -c "ip link add vx0 type vxlan id 4242 remote 198.18.0.1 dstport 4789 dev net1 && ip addr add 198.19.200.2/24 dev vx0 && ip link set vx0 up"
reachable() { nsenter --net="/run/netns/$st" -- ping -n -c 1 -W 1 198.19.200.2 >/dev/null 2>&1; }
e2e_wait_until 10 "an answer across the vxlan link" reachable || e2e_die "no answer across the vxlan link"
e2e_bg "$scope" ping "$E2E_RUN/ping.log" nsenter --net="/run/netns/$st" -- ping -n -i 0.05 -W 1 198.19.200.2
sleep 1
explain "Now the plugin pod is deleted — its container (every process in it, as Kubernetes does) and its
pod namespace — and a new one is created:"
old_ns=$E2E_PLUGIN_NS
e2e_plugin_stop "$scope" "$plugin"
e2e_plugin_start "$scope" "$plugin"
echo "plugin pod namespace: $old_ns (deleted) -> $E2E_PLUGIN_NS (new)"
sleep 1
ping_sub=$(e2e_tracked_pid "$scope" ping) || e2e_die "ping stopped"
for child in $(cat "/proc/$ping_sub/task/$ping_sub/children"); do kill -INT "$child"; done
e2e_wait_until 5 "ping's summary" grep -q 'packets transmitted' "$E2E_RUN/ping.log" || e2e_die "ping did not finish"
show host grep -A1 'packets transmitted' "$E2E_RUN/ping.log"
explain "The link and its kernel socket live in the holder's namespace, so the restart did not touch
them; inspect from the new plugin pod lists the socket under \"Kernel sockets\":"
if has_sub inspect; then
  show "$plugin" "$E2E_PLUGIN_EXEC" inspect --cluster-id "$cid" --config "$cfg"
fi
explain "And the new plugin pod uses the holder at once:"
show_run ceph -c "$conf" --connect-timeout 5 health
