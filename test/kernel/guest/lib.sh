# shellcheck shell=bash
# Guest-side helpers of the kernel scenarios: the node's namespaces, the holder, the plugin pod,
# its restart, and the workload on a kernel mapping. Needs test/e2e/lib/common.sh and net.sh.

KTEST_CID=kc
KTEST_HOLDER_DIR=/var/lib/kubelet/plugins/rbd.csi.ceph.com
KTEST_CONFIG=/run/ktest/csi/config.json
KTEST_KEYFILE=$KTEST_CEPH_DIR/admin.key
KTEST_CONF=$KTEST_CEPH_DIR/ceph.conf

ktest_on_failure() {
  echo "----- guest dmesg (last 30 lines) -----"
  dmesg | tail -n 30 || true
  local f
  for f in "$E2E_RUN"/*.log; do
    [ -e "$f" ] || continue
    echo "----- $f (last 15 lines) -----"
    tail -n 15 "$f" || true
  done
}

ktest_node_up() {
  # The storage network: eth0 (the tap on the host's storage0) under a bridge in its own namespace.
  e2e_netns_add "$KTEST_SCOPE" k-storage
  ip link set eth0 netns k-storage
  ip -n k-storage link add storage0 type bridge
  ip -n k-storage link set eth0 master storage0 up
  ip -n k-storage link set storage0 up
  printf 'E2E_CEPH_NETNS=k-storage\nE2E_CEPH_IP=%s\n' "$KTEST_CEPH_IP" >"$E2E_RUN/storage.env"
  e2e_node_create "$KTEST_SCOPE" >/dev/null
  # Holder directory as a node has it: root-owned, 0755, nothing group/other-writable.
  install -d -m 0755 -o root -g root /var/lib/kubelet/plugins "$KTEST_HOLDER_DIR"
  mkdir -p "$(dirname "$KTEST_CONFIG")"
}

# ktest_holder_start — the holder pod: a pod namespace with net1 on the storage network, the
# holder in it (hostPID-like, symlink mode), published files waited for. Sets KTEST_HOLDER_NS.
ktest_holder_start() {
  local ns addr
  ns=$(e2e_podnet_create "$KTEST_SCOPE" holder)
  addr=$(e2e_podnet_attach_storage "$ns" "$E2E_RUN/storage.env")
  e2e_spawn "$KTEST_SCOPE" holder "$ns" "$E2E_RUN/holder.log" \
    "$KTEST_HOLDER_BIN" --cluster-id "$KTEST_CID" --dir "$KTEST_HOLDER_DIR"
  e2e_wait_until 20 "the holder to publish its record and link" \
    test -e "$KTEST_HOLDER_DIR/$KTEST_CID.net.ns" -a -e "$KTEST_HOLDER_DIR/$KTEST_CID.holder.json" ||
    e2e_die "the holder did not publish: $(cat "$E2E_RUN/holder.log")"
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
  [ -z "$storage" ] || e2e_podnet_attach_storage "$ns" "$E2E_RUN/storage.env" >/dev/null
  e2e_scope_new "$E2E_RUN/plugin-$name"
  e2e_spawn "$E2E_RUN/plugin-$name" plugin "$ns" /dev/null sleep infinity
  echo "$ns" >"$E2E_RUN/plugin-$name.ns"
  KTEST_PLUGIN_NS=$ns
}

# ktest_plugin_restart NAME [storage] — what the e2e suite does: every process of the plugin
# killed, its namespace deleted, a new one created.
ktest_plugin_restart() {
  local name=$1 storage=${2:-}
  e2e_scope_kill "$E2E_RUN/plugin-$name" 2
  e2e_podnet_delete "$KTEST_SCOPE" "$(cat "$E2E_RUN/plugin-$name.ns")"
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
  rm -f "$E2E_RUN/$name.stop" "$E2E_RUN/$name.hb" "$E2E_RUN/$name.result"
  e2e_spawn "$KTEST_SCOPE" "workload-$name" - "$E2E_RUN/$name.log" \
    python3 "$KTEST_SRC/guest/workload.py" "$file" 64 "$E2E_RUN/$name.hb" "$E2E_RUN/$name.stop" \
    "$E2E_RUN/$name.result"
  ktest_wait_writes "$name" 3 60 || e2e_die "the workload did not start writing: $(cat "$E2E_RUN/$name.log")"
}

ktest_writes() { cat "$E2E_RUN/$1.hb" 2>/dev/null || echo 0; }

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
  touch "$E2E_RUN/$name.stop"
  e2e_wait_until 60 "the workload $name to verify and exit" test -s "$E2E_RUN/$name.result" ||
    e2e_die "the workload $name did not finish: $(tail -n 5 "$E2E_RUN/$name.log")"
  cat "$E2E_RUN/$name.log"
  # shellcheck disable=SC1090
  . "$E2E_RUN/$name.result"
  KTEST_W_WRITES=$writes KTEST_W_ERRORS=$errors KTEST_W_STALL=$max_stall_ms KTEST_W_VERIFIED=$verified
}
