# shellcheck shell=bash
# Guest-side helpers of the kernel scenarios: the node's namespaces, the holder, the plugin pod,
# its restart, and the workload on a kernel mapping. Needs test/e2e/lib/common.sh and net.sh.

KTEST_CID=kc-${KTEST_NAME//_/-}
KTEST_HOLDER_DIR=/var/lib/kubelet/plugins/rbd.csi.ceph.com
KTEST_CONFIG=$KTEST_W/csi/config.json
KTEST_STORAGE_ENV=/run/ktest/storage.env
KTEST_KEYFILE=$KTEST_CEPH_DIR/admin.key
KTEST_CONF=$KTEST_CEPH_DIR/ceph.conf

ktest_on_failure() {
  echo "----- guest dmesg (last 30 lines) -----"
  dmesg | tail -n 30 || true
  local f
  for f in "$KTEST_W"/*.log; do
    [ -e "$f" ] || continue
    echo "----- $f (last 15 lines) -----"
    tail -n 15 "$f" || true
  done
}

ktest_node_up() {
  # The storage network: eth0 (the tap on the host's storage0) under a bridge in its own namespace.
  e2e_netns_add "$KTEST_NODE_SCOPE" k-storage
  ip link set eth0 netns k-storage
  ip -n k-storage link add storage0 type bridge
  ip -n k-storage link set eth0 master storage0 up
  ip -n k-storage link set storage0 up
  printf 'E2E_CEPH_NETNS=k-storage\nE2E_CEPH_IP=%s\n' "$KTEST_CEPH_IP" >"$KTEST_STORAGE_ENV"
  e2e_node_create "$KTEST_NODE_SCOPE" >/dev/null
  # Holder directory as a node has it: root-owned, 0755, nothing group/other-writable.
  install -d -m 0755 -o root -g root /var/lib/kubelet/plugins "$KTEST_HOLDER_DIR"
}

# ktest_holder_start — the holder pod: a pod namespace with net1 on the storage network, the
# holder in it (hostPID-like, symlink mode), published files waited for. Sets KTEST_HOLDER_NS.
ktest_holder_start() {
  local ns addr
  ns=$(e2e_podnet_create "$KTEST_SCOPE" holder)
  addr=$(e2e_podnet_attach_storage "$ns" "$KTEST_STORAGE_ENV")
  e2e_spawn "$KTEST_SCOPE" holder "$ns" "$KTEST_W/holder.log" \
    "$KTEST_HOLDER_BIN" --cluster-id "$KTEST_CID" --dir "$KTEST_HOLDER_DIR"
  e2e_wait_until 20 "the holder to publish its record and link" \
    test -e "$KTEST_HOLDER_DIR/$KTEST_CID.net.ns" -a -e "$KTEST_HOLDER_DIR/$KTEST_CID.holder.json" ||
    e2e_die "the holder did not publish: $(cat "$KTEST_W/holder.log")"
  KTEST_HOLDER_NS=$ns
  jq -n --arg id "$KTEST_CID" --arg mon "$KTEST_CEPH_MON" --arg p "$KTEST_HOLDER_DIR/$KTEST_CID.net.ns" \
    '[{clusterID: $id, monitors: [$mon], rbd: {netNamespaceFilePath: $p}, cephFS: {netNamespaceFilePath: $p}}]' \
    >"$KTEST_CONFIG"
  e2e_log "holder up in $ns (net1 $addr), published in $KTEST_HOLDER_DIR"
}

# ktest_plugin_start NAME [storage] — the plugin pod: a fresh pod namespace with the pod network
# only (or, for a control, also net1 on storage), and a process of the plugin in it.
# Sets KTEST_PLUGIN_NS.
ktest_plugin_start() {
  local name=$1 storage=${2:-} ns
  ns=$(e2e_podnet_create "$KTEST_SCOPE" "$name")
  [ -z "$storage" ] || e2e_podnet_attach_storage "$ns" "$KTEST_STORAGE_ENV" >/dev/null
  e2e_scope_new "$KTEST_W/plugin-$name"
  e2e_spawn "$KTEST_W/plugin-$name" plugin "$ns" /dev/null sleep infinity
  echo "$ns" >"$KTEST_W/plugin-$name.ns"
  KTEST_PLUGIN_NS=$ns
}

# ktest_plugin_restart NAME [storage] — a pod restart as the kubelet makes it: every process of
# the plugin killed, CNI DEL (the CNI and Multus plugins delete the pod's interfaces inside its
# namespace), the sandbox namespace deleted, a new one created.
# The CNI DEL step matters with the real kernel client: libceph takes a reference on the
# namespace it opens its sessions in (ceph_messenger_init: get_net), so deleting the namespace
# alone leaves it alive, interfaces and all, and a client in it keeps working; what cuts it off
# is the deletion of its interfaces, which a real restart does.
ktest_plugin_restart() {
  local name=$1 storage=${2:-} ns
  ns=$(cat "$KTEST_W/plugin-$name.ns")
  e2e_scope_kill "$KTEST_W/plugin-$name" 2
  ip -n "$ns" link del eth0
  ip -n "$ns" link del net1 2>/dev/null || true
  e2e_podnet_delete "$KTEST_SCOPE" "$ns"
  ktest_plugin_start "$name" "$storage"
}

# ktest_exec NS ARGS... — netns-exec, run by the plugin from its pod namespace.
ktest_exec() {
  local ns=$1
  shift
  nsenter --net="/run/netns/$ns" -- "$KTEST_EXEC_BIN" "$@"
}

ktest_src() { ktest_exec "$1" "${@:2}" --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG"; }

# ktest_rbd_create NS IMAGE — an image, created through the holder from pod namespace NS.
ktest_rbd_create() {
  ktest_exec "$1" run --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --timeout 60s -- \
    rbd -c "$KTEST_CONF" --client-mount-timeout 10 create --size 64 "rbd/$2"
}

# ktest_map NS IMAGE — netns-exec map from pod namespace NS; prints the device.
ktest_map() {
  ktest_exec "$1" map --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --timeout 90s \
    --pool rbd --image "$2" --mon "$KTEST_CEPH_MON" --id admin --keyfile "$KTEST_KEYFILE"
}

# The workload: writes and fsyncs a known data set continuously (guest/workload.py).
# ktest_workload_start NAME FILE
ktest_workload_start() {
  local name=$1 file=$2
  rm -f "$KTEST_W/$name.stop" "$KTEST_W/$name.hb" "$KTEST_W/$name.result"
  e2e_spawn "$KTEST_SCOPE" "workload-$name" - "$KTEST_W/$name.log" \
    python3 "$KTEST_SRC/guest/workload.py" "$file" 64 "$KTEST_W/$name.hb" "$KTEST_W/$name.stop" \
    "$KTEST_W/$name.result"
  ktest_wait_writes "$name" 3 60 || e2e_die "the workload did not start writing: $(cat "$KTEST_W/$name.log")"
}

ktest_writes() { cat "$KTEST_W/$1.hb" 2>/dev/null || echo 0; }

# ktest_wait_writes NAME N LIMIT — until N more writes completed (bounded).
ktest_wait_writes() {
  local name=$1 n=$2 limit=$3 start
  start=$(ktest_writes "$name")
  e2e_wait_until "$limit" "$n more writes of $name" ktest__writes_at_least "$name" $((start + n))
}
ktest__writes_at_least() { [ "$(ktest_writes "$1")" -ge "$2" ]; }

# ktest_wait_stall NAME QUIET LIMIT — succeeds once no write completed for QUIET seconds, within
# LIMIT seconds; fails if writes keep completing.
ktest_wait_stall() {
  local name=$1 quiet=$2 limit=$3 last since deadline now
  deadline=$((SECONDS + limit))
  last=$(ktest_writes "$name")
  since=$SECONDS
  while [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.5
    now=$(ktest_writes "$name")
    if [ "$now" != "$last" ]; then
      last=$now
      since=$SECONDS
    elif [ $((SECONDS - since)) -ge "$quiet" ]; then
      e2e_log "$name: no write completed for ${quiet}s (stuck at $now writes)"
      return 0
    fi
  done
  return 1
}

# ktest_workload_stop NAME — stop, verify, and set KTEST_W_{WRITES,ERRORS,STALL,VERIFIED}.
ktest_workload_stop() {
  local name=$1
  touch "$KTEST_W/$name.stop"
  e2e_wait_until 60 "the workload $name to verify and exit" test -s "$KTEST_W/$name.result" ||
    { ktest_stacks "workload-$name"; e2e_die "the workload $name did not finish ($(ktest_writes "$name") writes): $(tail -n 5 "$KTEST_W/$name.log")"; }
  cat "$KTEST_W/$name.log"
  # shellcheck disable=SC1090
  . "$KTEST_W/$name.result"
  KTEST_W_WRITES=$writes KTEST_W_ERRORS=$errors KTEST_W_STALL=$max_stall_ms KTEST_W_VERIFIED=$verified
}

# ktest_control_stall NAME RESTART_CMD... — the control's one plugin restart, then the bounded
# wait for the stall: no write may complete for 5 s within 40 s, or the control failed (the test
# could not have caught a broken holder).
ktest_control_stall() {
  local name=$1
  shift
  ktest_wait_writes "$name" 3 30 || e2e_die "the control's workload did not write before the restart"
  "$@"
  e2e_log "control: plugin restarted; waiting (bounded) for the I/O to stall"
  ktest_wait_stall "$name" 5 40 ||
    e2e_die "the control did not stall: $(ktest_writes "$name") writes kept completing after the plugin's namespace was deleted"
}

# ktest_bounded SECONDS WHAT CMD... — a cleanup step that may hang on a dead session: bounded,
# its outcome logged, never fatal (the VM is powered off after the scenario whatever happened).
ktest_bounded() {
  local limit=$1 what=$2 rc=0
  shift 2
  timeout -k 2 "$limit" "$@" || rc=$?
  e2e_log "cleanup: $what exited $rc"
}

# Undo what the scenario recorded: plugin scopes, then its own (mounts, processes, namespaces).
ktest_scenario_cleanup() {
  local d
  for d in "$KTEST_W"/plugin-*/; do
    [ -d "$d" ] && e2e_scope_cleanup "${d%/}"
  done
  e2e_scope_cleanup "$KTEST_SCOPE"
}

# ktest_stacks NAME — where a tracked process of the scenario is blocked (for a failure report).
ktest_stacks() {
  local pid
  pid=$(e2e_tracked_pid "$KTEST_SCOPE" "$1") || return 0
  echo "----- $1 (pid $pid): $(grep State /proc/$pid/status), wchan $(cat /proc/$pid/wchan 2>/dev/null) -----"
  cat /proc/"$pid"/stack 2>/dev/null || true
}

# ktest_mount_ceph NS TARGET — netns-exec mount --type ceph from pod namespace NS.
ktest_mount_ceph() {
  ktest_exec "$1" mount --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --kind cephfs \
    --timeout 90s --type ceph --mon "$KTEST_CEPH_MON" --id admin --keyfile "$KTEST_KEYFILE" "$2"
}
