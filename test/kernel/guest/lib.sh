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

# ktest_holder_start [monitors-only] — the holder pod: a pod namespace with net1 on the storage
# network, the holder in it (hostPID-like, symlink mode), published files waited for; then the
# plugin's ceph-csi config.json (ktest_csi_config). Sets KTEST_HOLDER_NS.
ktest_holder_start() {
  local config=${1:-with-netns-path} ns addr mode=() file=net.ns
  # Socket mode: the holder serves its namespace's descriptor on <ID>.net.sock.
  [ "$config" != with-socket-path ] || mode=(--socket) file=net.sock
  ns=$(e2e_podnet_create "$KTEST_SCOPE" holder)
  addr=$(e2e_podnet_attach_storage "$ns" "$KTEST_STORAGE_ENV")
  e2e_spawn "$KTEST_SCOPE" holder "$ns" "$KTEST_W/holder.log" \
    "$KTEST_HOLDER_BIN" --cluster-id "$KTEST_CID" --dir "$KTEST_HOLDER_DIR" "${mode[@]}"
  e2e_wait_until 20 "the holder to publish its record and $file" \
    test -e "$KTEST_HOLDER_DIR/$KTEST_CID.$file" -a -e "$KTEST_HOLDER_DIR/$KTEST_CID.holder.json" ||
    e2e_die "the holder did not publish: $(cat "$KTEST_W/holder.log")"
  KTEST_HOLDER_NS=$ns
  ktest_csi_config "$config"
  e2e_log "holder up in $ns (net1 $addr), published in $KTEST_HOLDER_DIR"
}

# ktest_csi_config with-netns-path|with-socket-path|monitors-only — the plugin's ceph-csi
# config.json for the scenario's cluster: with netNamespaceFilePath naming the holder's link (what
# `netns-exec --cluster-id` reads) or its socket (the library mode's: the patched cephcsi asks it
# for the descriptor), or, as Rook and ceph-csi-operator now write it, the monitors only
# (transparent mode finds the holder from the monitors a command names).
ktest_csi_config() {
  local file=net.ns
  case $1 in
    with-netns-path | with-socket-path)
      [ "$1" = with-netns-path ] || file=net.sock
      jq -n --arg id "$KTEST_CID" --arg mon "$KTEST_CEPH_MON" --arg p "$KTEST_HOLDER_DIR/$KTEST_CID.$file" \
        '[{clusterID: $id, monitors: [$mon], rbd: {netNamespaceFilePath: $p}, cephFS: {netNamespaceFilePath: $p}}]' ;;
    monitors-only)
      jq -n --arg id "$KTEST_CID" --arg mon "$KTEST_CEPH_MON" '[{clusterID: $id, monitors: [$mon]}]' ;;
    *) e2e_die "ktest_csi_config: unknown form $1" ;;
  esac >"$KTEST_CONFIG"
}

# ktest_plugin_start NAME [storage] — the plugin pod: a fresh pod namespace with the pod network,
# and with `storage` also net1 on the storage network (a Multus attachment: what a real ceph-csi
# plugin needs for its own RADOS connections; without it, the routing alone is shown), and a
# process of the plugin in it.
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

# The heartbeat: "WRITES ERRORS" (guest/workload.py); 0 before the first write.
ktest_writes() { ktest__hb "$1" 1; }
ktest_write_errors() { ktest__hb "$1" 2; }
ktest__hb() {
  local hb
  hb=$(cat "$KTEST_W/$1.hb" 2>/dev/null) || hb="0 0"
  echo "$hb" | cut -d' ' -f"$2"
}

# ktest_wait_writes NAME N LIMIT — until N more writes completed (bounded).
ktest_wait_writes() {
  local name=$1 n=$2 limit=$3 start
  start=$(ktest_writes "$name")
  e2e_wait_until "$limit" "$n more writes of $name" ktest__writes_at_least "$name" $((start + n))
}
ktest__writes_at_least() { [ "$(ktest_writes "$1")" -ge "$2" ]; }

# ktest_wait_stall NAME QUIET LIMIT — succeeds once no write completed for QUIET seconds, within
# LIMIT seconds; fails if writes keep completing. Sets KTEST_STALL_SINCE: $SECONDS when the last
# write completed (as first seen).
ktest_wait_stall() {
  local name=$1 quiet=$2 limit=$3 last since deadline now
  deadline=$((SECONDS + limit))
  last=$(ktest_writes "$name")
  since=$SECONDS
  KTEST_STALL_SINCE=$since
  while [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.5
    now=$(ktest_writes "$name")
    if [ "$now" != "$last" ]; then
      last=$now
      since=$SECONDS
    elif [ $((SECONDS - since)) -ge "$quiet" ]; then
      KTEST_STALL_SINCE=$since
      e2e_log "$name: no write completed for $((SECONDS - since))s (stuck at $now writes)"
      return 0
    fi
  done
  return 1
}

# ktest_workload_stop NAME — stop, verify, and set KTEST_W_{WRITES,ERRORS,STALL,VERIFIED,SHA256,SIZE}.
ktest_workload_stop() {
  local name=$1
  touch "$KTEST_W/$name.stop"
  e2e_wait_until 60 "the workload $name to verify and exit" test -s "$KTEST_W/$name.result" ||
    { ktest_stacks "workload-$name"; e2e_die "the workload $name did not finish ($(ktest_writes "$name") writes): $(tail -n 5 "$KTEST_W/$name.log")"; }
  cat "$KTEST_W/$name.log"
  # shellcheck disable=SC1090
  . "$KTEST_W/$name.result"
  KTEST_W_WRITES=$writes KTEST_W_ERRORS=$errors KTEST_W_STALL=$max_stall_ms KTEST_W_VERIFIED=$verified
  KTEST_W_SHA256=$expected_sha256 KTEST_W_SIZE=$expected_size
}

# ktest_restarts NAME RESTARTS [RESTART...] — while the workload NAME (started) writes, the plugin
# pod restarts RESTARTS times, each restart followed by 3 more writes (bounded); the workload keeps
# writing. Sets KTEST_RESTARTS. RESTART (default `ktest_plugin_restart plugin`) is one restart.
ktest_restarts() {
  local name=$1 restarts=$2 r
  local restart=("${@:3}")
  [ ${#restart[@]} -gt 0 ] || restart=(ktest_plugin_restart plugin)
  for r in $(seq 1 "$restarts"); do
    "${restart[@]}"
    ktest_wait_writes "$name" 3 30 || e2e_die "writes stalled after plugin restart $r"
    e2e_log "restart $r: plugin namespace now $KTEST_PLUGIN_NS, $(ktest_writes "$name") writes"
  done
  KTEST_RESTARTS=$r
}

# ktest_holder_restarts NAME RESTARTS [RESTART...] — the holder runs' core: ktest_restarts, then
# the workload is stopped and must show 0 I/O errors, no write over KTEST_HOLDER_STALL_MS, and its
# data read back as written. Sets KTEST_W_* (ktest_workload_stop) and KTEST_RESTARTS.
ktest_holder_restarts() {
  ktest_restarts "$@"
  ktest_workload_stop "$1"
  [ "$KTEST_W_ERRORS" -eq 0 ] || e2e_die "$KTEST_W_ERRORS I/O errors"
  [ "$KTEST_W_STALL" -le "$KTEST_HOLDER_STALL_MS" ] || e2e_die "a write stalled for $KTEST_W_STALL ms (limit $KTEST_HOLDER_STALL_MS)"
  [ "$KTEST_W_VERIFIED" = yes ] || e2e_die "the data read back does not match what was written"
}

# ktest_ext4_mount DEV DIR [untracked] — a fresh ext4 on the mapped device DEV, mounted on DIR,
# tracked for cleanup unless a control's (its unmount would hang on the stalled device).
ktest_ext4_mount() {
  [ -b "$1" ] || e2e_die "$1 is not a block device"
  mkfs.ext4 -q "$1"
  mkdir -p "$2"
  mount "$1" "$2"
  [ "${3:-}" = untracked ] || e2e_track_mount "$KTEST_SCOPE" "$2"
}

# ktest_krbd_restarts NAME DEV RESTARTS — a krbd holder run's middle: ext4 on the mapped DEV at
# /mnt/NAME, the workload NAME writing /mnt/NAME/data through RESTARTS plugin restarts
# (ktest_holder_restarts), then unmounted: the data at rest, ready for ktest_expect_rbd_ext4.
ktest_krbd_restarts() {
  ktest_ext4_mount "$2" "/mnt/$1"
  ktest_workload_start "$1" "/mnt/$1/data"
  ktest_holder_restarts "$1" "$3"
  umount "/mnt/$1"
}

# The holder runs' limit on a single write+fsync (ms), and the quiet time a control must show
# before it counts as stalled (s): four times that limit, so neither a slow emulated write nor a
# passing hiccup reads as the stall, and a holder run that stalls as long as a control fails.
KTEST_HOLDER_STALL_MS=5000
KTEST_CONTROL_QUIET_S=20

# --- Checks from Ceph's side ---------------------------------------------------------------
# A holder run's data is checked by another client, a userspace one on the host, reading the
# cluster directly: the scenario prints what it wrote (computed by the workload from its writes)
# and where, and the host (run.sh, lib/host.sh ktest_verify_from_ceph) reads it back after the
# scenario and adds "verified_from_ceph yes|no" to that figure. Print these only once the data is
# at rest (file system unmounted; image unmapped or no longer written).

# ktest_expect_rbd_ext4 FIGURE IMAGE PATH — IMAGE (pool rbd) holds an ext4 file system whose file
# PATH (from its root) must read as the workload's last KTEST_W_SHA256/KTEST_W_SIZE.
ktest_expect_rbd_ext4() {
  echo "KTEST-VERIFY $1 rbd-ext4 rbd/$2 $3 $KTEST_W_SHA256 $KTEST_W_SIZE"
}

# ktest_expect_cephfs FIGURE FILE — FILE on a kernel CephFS mount (still mounted: its layout and
# inode are read here) must read as the workload's last KTEST_W_SHA256/KTEST_W_SIZE; the host reads
# the file's objects from the data pool with rados.
ktest_expect_cephfs() {
  local layout
  layout=$(python3 -c 'import os, sys
p = sys.argv[1]
g = lambda k: os.getxattr(p, "ceph.file.layout." + k).decode()
print(g("pool"), g("object_size"), g("stripe_unit"), g("stripe_count"), "%x" % os.stat(p).st_ino)' "$2") ||
    e2e_die "cannot read the CephFS layout of $2"
  local pool object_size stripe_unit stripe_count ino
  read -r pool object_size stripe_unit stripe_count ino <<<"$layout"
  # One object after the other, as the host reads them: no striping across objects.
  [ "$stripe_count" = 1 ] && [ "$stripe_unit" = "$object_size" ] ||
    e2e_die "$2: striped layout (stripe_unit $stripe_unit, count $stripe_count); the check from Ceph's side reads whole objects"
  echo "KTEST-VERIFY $1 cephfs $pool $ino $object_size $KTEST_W_SHA256 $KTEST_W_SIZE"
}

# --- Controls -------------------------------------------------------------------------------
# ktest_control FIGURE NAME RESTART_CMD... — a control's one plugin restart and what it must show,
# each for the reason it names: the workload NAME wrote before the restart; after it no write
# completes for KTEST_CONTROL_QUIET_S (bounded); the workload is still alive (blocked, not
# crashed); it had no I/O error; the kernel logged nothing but the cut-off's own connection
# messages (libceph's socket/session lines); and the cluster still serves another client (a fresh
# pod on the storage network lists the rbd pool), so no dead OSD or mon explains the stall.
# Prints the figure line with what was seen.
# For a client that is not Ceph's, the scenario sets what differs: KTEST_CONTROL_KMSG_OK (an awk
# regex of the client's own cut-off messages, allowed besides libceph's), KTEST_CONTROL_PROBE (a
# command run with a fresh storage pod's namespace as its argument: the server serves it) and
# KTEST_CONTROL_SERVER (what the figure calls that server).
KTEST_CONTROL_KMSG_OK=
KTEST_CONTROL_PROBE=ktest__probe_ceph
KTEST_CONTROL_SERVER=cluster
ktest__probe_ceph() {
  nsenter --net="/run/netns/$1" -- timeout 60 rbd -c "$KTEST_CONF" --client-mount-timeout 20 ls rbd >/dev/null
}
ktest_control() {
  local figure=$1 name=$2 pid state kmsg_before errs others restarts=0 stalled=no alive=no serving=no
  local stuck_at blocked
  shift 2
  ktest_wait_writes "$name" 3 30 || e2e_die "the control's workload did not write before the restart"
  kmsg_before=$(dmesg | wc -l)
  # The namespace the control's kernel client lives in stays referenced for the VM's life (a
  # process in the node's scope, not the scenario's). Its sockets are the kernel's: they do not
  # pin it, and once net1 is gone one of them can sit in FIN-WAIT-1 for minutes, its FIN with no
  # route. When the client goes (a forced unmount), libceph's reference goes with it; freed with
  # such a socket still in it, the namespace's memory is reused by the next one created, and the
  # socket shows up there — a FIN-WAIT-1 Ceph socket in a pod namespace with no route to Ceph,
  # the likeliest explanation of what inspect_guard once saw in its plugin's namespace after
  # cephfs_control (not reproduced). Kept, the namespace is never reused.
  e2e_spawn "$E2E_RUN/node-scope" "pin-$KTEST_NAME-$KTEST_TAG" "$KTEST_PLUGIN_NS" /dev/null sleep infinity
  "$@"
  restarts=$((restarts + 1))
  e2e_log "control: plugin restarted; waiting (bounded) for no write to complete for ${KTEST_CONTROL_QUIET_S}s"
  ktest_wait_stall "$name" "$KTEST_CONTROL_QUIET_S" $((KTEST_CONTROL_QUIET_S + 60)) ||
    e2e_die "the control did not stall: $(ktest_writes "$name") writes kept completing after the plugin's restart"
  stuck_at=$(ktest_writes "$name")
  pid=$(e2e_tracked_pid "$KTEST_SCOPE" "workload-$name") ||
    e2e_die "the control's workload is gone: a crash, not a stall ($(tail -n 5 "$KTEST_W/$name.log"))"
  state=$(sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$pid/status")
  [ -n "$state" ] && [ "$state" != Z ] || e2e_die "the control's workload $pid has exited (state ${state:-gone}): not a stall"
  alive=yes
  errs=$(ktest_write_errors "$name")
  [ "$errs" -eq 0 ] || e2e_die "the control's workload saw $errs I/O errors: a failure, not a stall ($(tail -n 3 "$KTEST_W/$name.log"))"
  # What the cut-off may log: libceph's messenger losing its sessions — a socket closed or in
  # error, a connect that fails once net1 is gone (-101 ENETUNREACH, -113 EHOSTUNREACH, -110
  # ETIMEDOUT), a mon session lost.
  # (The scenario's regex through the environment: awk -v would take its backslashes as escapes.)
  others=$(dmesg | tail -n +$((kmsg_before + 1)) | KTEST_KMSG_OK=$KTEST_CONTROL_KMSG_OK awk 'tolower($0) ~ /error|fail|warn/ &&
    (ENVIRON["KTEST_KMSG_OK"] == "" || $0 !~ ENVIRON["KTEST_KMSG_OK"]) &&
    !/libceph: ((mon|osd|mds)[0-9]+ )?\([0-9]+\)[0-9.]+:[0-9]+ (socket (closed|error)|connect error|session lost)/ &&
    !/libceph: connect \([0-9]+\)[0-9.]+:[0-9]+ error -(101|110|113)/')
  [ -z "$others" ] || e2e_die "the kernel logged errors other than the cut-off's: $others"
  local plugin_ns=$KTEST_PLUGIN_NS
  ktest_plugin_start probe storage
  "$KTEST_CONTROL_PROBE" "$KTEST_PLUGIN_NS" ||
    e2e_die "the $KTEST_CONTROL_SERVER does not serve a fresh client on the storage network: the stall is not the cut-off's"
  serving=yes
  KTEST_PLUGIN_NS=$plugin_ns
  # Still stalled after all that (the cluster served another client meanwhile): how long the
  # workload has been blocked, from its last completed write to now.
  [ "$(ktest_writes "$name")" = "$stuck_at" ] ||
    e2e_die "the control's writes resumed ($stuck_at, then $(ktest_writes "$name")): a hiccup, not a cut-off"
  stalled=yes
  blocked=$((SECONDS - KTEST_STALL_SINCE))
  e2e_log "control: workload $pid alive (state $state), no write for ${blocked}s, 0 I/O errors; the $KTEST_CONTROL_SERVER serves a fresh client"
  echo "FIGURE $figure: restarts $restarts, stalled $stalled, writes_blocked_s $blocked, workload alive $alive, workload errors $errs, $KTEST_CONTROL_SERVER serving $serving"
}

# ktest_krbd_control FIGURE NAME — krbd's control from a plugin pod with net1 on storage: plain
# `rbd create` and `rbd map` as ceph-csi calls them (ktest_plain_rbd_*, the real rbd in the pod's
# own namespace), ext4 and the workload NAME on the device, one plugin restart (ktest_control).
# The stalled mapping stays (not tracked); its forced unmap (noudev) is bounded.
ktest_krbd_control() {
  local figure=$1 name=$2 dev
  ktest_plugin_start ctl storage
  ktest_plain_rbd_create "$KTEST_PLUGIN_NS" "$name-$KTEST_TAG"
  dev=$(ktest_plain_rbd_map "$KTEST_PLUGIN_NS" "$name-$KTEST_TAG")
  e2e_log "rbd map from the plugin's own namespace $KTEST_PLUGIN_NS gave $dev"
  ktest_ext4_mount "$dev" "/mnt/$name" untracked
  ktest_workload_start "$name" "/mnt/$name/data"
  ktest_control "$figure" "$name" ktest_plugin_restart ctl storage
  # noudev as every unmap here: the guest runs no udevd, and without it rbd waits for a udev
  # event until the bound.
  ktest_bounded 20 "rbd unmap -o force $dev" \
    rbd -c "$KTEST_CONF" unmap "$dev" --device-type krbd --options noudev --options force
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
# The holder's namespace is deleted only once its kernel sockets have finished closing (bounded;
# net1 is still there, so the peer acknowledges a FIN at once): a kernel socket does not pin its
# namespace, and one left in FIN-WAIT-1 in a freed namespace shows up in the next namespace that
# reuses its memory (see ktest_control, where this was seen). TIME-WAIT ones are the namespace's
# own and go with it.
ktest_scenario_cleanup() {
  local d
  ktest__run_at_cleanup
  for d in "$KTEST_W"/plugin-*/; do
    [ -d "$d" ] && e2e_scope_cleanup "${d%/}"
  done
  if [ -n "${KTEST_HOLDER_NS:-}" ] && [ -e "/run/netns/$KTEST_HOLDER_NS" ]; then
    local closing t0=$SECONDS
    closing=$(ss -N "$KTEST_HOLDER_NS" -Htan state fin-wait-1 state closing state last-ack | wc -l)
    e2e_wait_until 30 "the holder namespace's sockets to finish closing" ktest__no_closing_sockets "$KTEST_HOLDER_NS" ||
      e2e_log "cleanup: sockets still closing in $KTEST_HOLDER_NS after 30 s: $(ss -N "$KTEST_HOLDER_NS" -tanoe)"
    [ "$closing" -eq 0 ] || e2e_log "cleanup: $closing sockets were closing in $KTEST_HOLDER_NS; waited $((SECONDS - t0))s before deleting it"
  fi
  e2e_scope_cleanup "$KTEST_SCOPE"
}

# Full TCP sockets on their way out (an established one is a live session: not waited for).
ktest__no_closing_sockets() {
  [ -z "$(ss -N "$1" -Htan state fin-wait-1 state closing state last-ack)" ]
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

# --- Transparent mode ----------------------------------------------------------------------
# The plugin container as the plugin image lays it out (manifests/images): netns-exec linked as
# `rbd` in a directory first on PATH, the real rbd after it (/usr/bin); and as mount(8)'s helper
# `/sbin/mount.ceph`. mount(8) looks for helpers in /sbin only and gives them no PATH (it drops
# PATH from their environment), so the shim is bound over the real helper, which is copied first to
# a directory NETNS_EXEC_REAL_PATH names. The environment is the chart's (`netns-exec-env`): the
# config, the holder directory, the held clusters. ktest_plugin_call runs a command with it.
KTEST_PLUGIN_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# ktest_shim_install — the shims, for this scenario (the bind over mount.ceph is undone with its
# scope). Sets KTEST_SHIM_DIR and KTEST_SHIM_ENV (where the shim finds the real mount.ceph).
ktest_shim_install() {
  KTEST_SHIM_DIR=$KTEST_W/shim
  install -d -m 0755 "$KTEST_SHIM_DIR" "$KTEST_W/real"
  ln -s "$KTEST_EXEC_BIN" "$KTEST_SHIM_DIR/rbd"
  cp /usr/sbin/mount.ceph "$KTEST_W/real/mount.ceph"
  mount --bind "$KTEST_EXEC_BIN" /usr/sbin/mount.ceph
  e2e_track_mount "$KTEST_SCOPE" /usr/sbin/mount.ceph
  KTEST_SHIM_ENV=("NETNS_EXEC_REAL_PATH=$KTEST_PLUGIN_PATH:$KTEST_W/real")
}
KTEST_SHIM_ENV=()

# ktest_plugin_call NS CMD... — CMD as the plugin container runs it from pod namespace NS, with the
# shims first on PATH once ktest_shim_install ran (without them: the same call, the same
# environment, the real programs only — what a control runs).
ktest_plugin_call() {
  local ns=$1
  shift
  ktest_plugin_env
  nsenter --net="/run/netns/$ns" -- env "${KTEST_PLUGIN_ENV[@]}" "$@"
}

# ktest_plugin_env — the plugin container's environment in KTEST_PLUGIN_ENV (for env(1)).
ktest_plugin_env() {
  local path=$KTEST_PLUGIN_PATH
  [ -z "${KTEST_SHIM_DIR:-}" ] || path=$KTEST_SHIM_DIR:$path
  KTEST_PLUGIN_ENV=("PATH=$path" "NETNS_EXEC_CONFIG=$KTEST_CONFIG" "NETNS_EXEC_HOLDER_DIR=$KTEST_HOLDER_DIR"
    "NETNS_EXEC_HELD_CLUSTERS=$KTEST_CID" "${KTEST_SHIM_ENV[@]}")
}

# How ceph-csi calls rbd for a kernel mapping (internal/rbd: --id, -m, --keyfile, then the action;
# `--device-type krbd --options noudev` on every map and unmap, DESIGN §10).
ktest_rbd_auth() { echo --id admin -m "$KTEST_CEPH_MON" --keyfile="$KTEST_KEYFILE"; }

# ktest_plain_rbd_map NS IMAGE — plain `rbd ... map` (pool rbd) from NS; prints the device.
ktest_plain_rbd_map() {
  # shellcheck disable=SC2046
  ktest_plugin_call "$1" timeout 90 rbd $(ktest_rbd_auth) map "rbd/$2" --device-type krbd --options noudev
}

# ktest_plain_rbd_create NS IMAGE — plain `rbd ... create` (pool rbd, 64 MiB) from NS.
ktest_plain_rbd_create() {
  # shellcheck disable=SC2046
  ktest_plugin_call "$1" timeout 60 rbd $(ktest_rbd_auth) --client-mount-timeout 10 create --size 64 "rbd/$2"
}

# ktest_median NUMBER... — the median (the mean of the middle two for an even count).
ktest_median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ktest_bench_pairs PAIRS WHAT START — the bench scenarios' paired rounds. The scenario defines
# bench_round own|holder (the measured call from the arm's pod) and bench_version real|shim (the
# tool's start with the real program or through the shim), each leaving its time in bench_ms (ms).
# One unpaired warm-up of each first; then PAIRS pairs of the four, the order alternating from pair
# to pair, each logged (WHAT and START name the two measurements). Leaves the lists in
# KTEST_BENCH_OWN, _HOLDER, _REAL, _SHIM and the per-pair ratios holder/own in KTEST_BENCH_RATIOS.
ktest_bench_pairs() {
  local pairs=$1 what=$2 start=$3 i arm order own holder real shim
  bench_round own
  bench_round holder
  bench_version real
  bench_version shim
  e2e_log "bench: warm-up done (one round of each arm)"
  KTEST_BENCH_OWN=() KTEST_BENCH_HOLDER=() KTEST_BENCH_REAL=() KTEST_BENCH_SHIM=() KTEST_BENCH_RATIOS=()
  for i in $(seq 1 "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then order="own holder real shim"; else order="shim real holder own"; fi
    for arm in $order; do
      case $arm in
        own | holder) bench_round "$arm" ;;
        *) bench_version "$arm" ;;
      esac
      printf -v "$arm" %s "$bench_ms"
    done
    KTEST_BENCH_OWN+=("$own") KTEST_BENCH_HOLDER+=("$holder") KTEST_BENCH_REAL+=("$real") KTEST_BENCH_SHIM+=("$shim")
    KTEST_BENCH_RATIOS+=("$(awk -v h="$holder" -v o="$own" 'BEGIN { printf "%.3f", h / o }')")
    e2e_log "bench pair $i ($order): $what own $own ms, holder $holder ms, ratio ${KTEST_BENCH_RATIOS[-1]}; $start real $real ms, shim $shim ms"
  done
}

# ktest_bench_figures KEY — after ktest_bench_pairs: FIGURE KEY (the arms' medians in ms and the
# median ratio) and FIGURE KEY_startup (the starts' medians).
ktest_bench_figures() {
  local ms='BEGIN { printf "%.1f", m }'
  echo "FIGURE $1: pairs ${#KTEST_BENCH_RATIOS[@]}, own_ms $(awk -v m="$(ktest_median "${KTEST_BENCH_OWN[@]}")" "$ms"), holder_ms $(awk -v m="$(ktest_median "${KTEST_BENCH_HOLDER[@]}")" "$ms"), ratio $(awk -v r="$(ktest_median "${KTEST_BENCH_RATIOS[@]}")" 'BEGIN { printf "%.3f", r }')"
  echo "FIGURE ${1}_startup: pairs ${#KTEST_BENCH_SHIM[@]}, real_ms $(awk -v m="$(ktest_median "${KTEST_BENCH_REAL[@]}")" "$ms"), shim_ms $(awk -v m="$(ktest_median "${KTEST_BENCH_SHIM[@]}")" "$ms")"
}

# --- Cleanup steps of a scenario's own ---------------------------------------------------------
# ktest_at_cleanup CMD... — run CMD when the scenario ends, whatever happened, before its scopes
# are undone (ktest_scenario_cleanup), the last registered first: what a scope cannot record (a
# blocklist entry on the cluster, a mapping). Each runs in a subshell, so one that fails (or
# calls e2e_die) is logged and the rest of the cleanup still runs.
KTEST_AT_CLEANUP=()
ktest_at_cleanup() { KTEST_AT_CLEANUP+=("$(printf '%q ' "$@")"); }
ktest__run_at_cleanup() {
  local i rc
  for ((i = ${#KTEST_AT_CLEANUP[@]} - 1; i >= 0; i--)); do
    rc=0
    (eval "${KTEST_AT_CLEANUP[i]}") || rc=$?
    [ "$rc" -eq 0 ] || e2e_log "cleanup: ${KTEST_AT_CLEANUP[i]}exited $rc"
  done
  KTEST_AT_CLEANUP=()
}

# ktest_unmap_image_force IMAGE — every krbd mapping of rbd/IMAGE on the node, force-unmapped
# (bounded, logged): found by the image's name in /sys/bus/rbd/devices, never by a device number
# a later mapping may have taken. With noudev, as netns-exec unmaps: the guest runs no udevd, and
# rbd would wait for its event until the bound.
ktest_unmap_image_force() {
  local d
  for d in /sys/bus/rbd/devices/*; do
    [ -e "$d/name" ] || continue
    [ "$(cat "$d/pool")" = rbd ] && [ "$(cat "$d/name")" = "$1" ] || continue
    ktest_bounded 30 "rbd unmap -o force /dev/rbd${d##*/} (rbd/$1)" \
      rbd -c "$KTEST_CONF" unmap "/dev/rbd${d##*/}" --device-type krbd --options noudev --options force
  done
}

# --- Fencing ---------------------------------------------------------------------------------
# ktest_node_storage_attach — the node's own address on the storage network, as a node has it
# where the plugin maps from the host's network: a veth from the guest's initial namespace to
# storage0 (its peer recorded in the scenario's scope, so the pair goes with it). Without it the
# initial namespace has no client address, and a fence of the node's addresses would be empty.
# Sets KTEST_NODE_ADDR.
ktest_node_storage_attach() {
  local idx E2E_CEPH_NETNS E2E_CEPH_IP
  # shellcheck disable=SC1090
  . "$KTEST_STORAGE_ENV"
  idx=$(e2e_alloc_index)
  KTEST_NODE_ADDR=$(e2e_ip_add "$E2E_CEPH_IP" $((15 + idx % 4000)))
  ip link add kt-node type veth peer name "s$idx" netns "$E2E_CEPH_NETNS"
  e2e_track_link "$KTEST_SCOPE" "$E2E_CEPH_NETNS" "s$idx"
  ip -n "$E2E_CEPH_NETNS" link set "s$idx" master storage0 up
  ip addr add "$KTEST_NODE_ADDR/20" dev kt-node
  ip link set kt-node up
  e2e_wait_until 10 "kt-node to come up" ktest__init_link_up kt-node ||
    e2e_die "kt-node did not come up within 10 s: $(ip -o link show kt-node)"
}
ktest__init_link_up() { ip link show "$1" | grep 'state UP' >/dev/null; }

# ktest_fence_admin_start — the operator's side: a pod on the storage network that no fence of
# this node covers, where the ceph CLI runs (ktest_ceph). Sets KTEST_ADMIN_NS.
ktest_fence_admin_start() {
  KTEST_ADMIN_NS=$(e2e_podnet_create "$KTEST_SCOPE" admin)
  e2e_podnet_attach_storage "$KTEST_ADMIN_NS" "$KTEST_STORAGE_ENV" >/dev/null
}

# ktest_ceph ARGS... — the ceph CLI against the cluster, from the admin pod (bounded).
ktest_ceph() {
  nsenter --net="/run/netns/$KTEST_ADMIN_NS" -- timeout 60 ceph -c "$KTEST_CONF" --connect-timeout 20 "$@"
}

# ktest_fence CIDR... — `ceph osd blocklist range add CIDR` for each, what a NetworkFence makes
# ceph-csi run; returns once the osdmap lists them all and every OSD has that map (an OSD refuses a
# client's ops by its own map), so a write that completes afterwards was not fenced. The CIDRs are
# recorded before they are added (an add that timed out may still have gone through) and lifted by
# ktest_fence_lift, which the scenario's cleanup runs whatever happened. Sets KTEST_FENCE_EPOCH.
ktest_fence() {
  local cidr osd
  [ "$#" -gt 0 ] || e2e_die "ktest_fence: no CIDR to fence"
  ktest_at_cleanup ktest_fence_lift
  printf '%s\n' "$@" >>"$KTEST_W/fence.cidrs"
  # One ceph process for them all, reading the commands from stdin: each start of the CLI costs
  # seconds in the emulated guest. It exits 0 whatever a command did; the osdmap read next is what
  # tells.
  printf 'osd blocklist range add %s\n' "$@" | ktest_ceph
  ktest_ceph osd dump -f json >"$KTEST_W/osdmap.json" || e2e_die "ceph osd dump failed"
  for cidr in "$@"; do
    jq -e --arg k "cidr:${cidr%/*}:0/${cidr#*/}" '.range_blocklist | has($k)' "$KTEST_W/osdmap.json" >/dev/null ||
      e2e_die "the osdmap does not list $cidr after ceph osd blocklist range add: $(jq -c .range_blocklist "$KTEST_W/osdmap.json")"
  done
  KTEST_FENCE_EPOCH=$(jq -e .epoch "$KTEST_W/osdmap.json")
  for osd in $(jq -r '.osds[].osd' "$KTEST_W/osdmap.json"); do
    e2e_wait_until 60 "osd.$osd to have osdmap $KTEST_FENCE_EPOCH" ktest__osd_has_map "$osd" "$KTEST_FENCE_EPOCH" ||
      e2e_die "osd.$osd did not get osdmap $KTEST_FENCE_EPOCH (the fence) within 60 s"
  done
  e2e_log "fenced $* (osdmap $KTEST_FENCE_EPOCH, on every OSD)"
}
ktest__osd_has_map() { [ "$(ktest_ceph tell "osd.$1" status -f json | jq -e .newest_map)" -ge "$2" ]; }

# ktest_fence_lift — `ceph osd blocklist range rm` of every CIDR ktest_fence added; then the osdmap
# must list no blocklist entry for any of their addresses (neither a range nor a single client,
# such as one a krbd lock break adds). Fails, naming them, if any is left; what was lifted is
# forgotten.
ktest_fence_lift() {
  local cidr listed left=()
  [ -s "$KTEST_W/fence.cidrs" ] || return 0
  sed 's|^|osd blocklist range rm |' "$KTEST_W/fence.cidrs" | ktest_ceph
  listed=$(ktest_ceph osd dump -f json | jq -r '(.blocklist + .range_blocklist) | keys[]') ||
    { e2e_log "cannot read the blocklist (ceph osd dump)"; return 1; }
  while read -r cidr; do
    ! grep -qF "${cidr%/*}:" <<<"$listed" || left+=("$cidr")
  done <"$KTEST_W/fence.cidrs"
  if [ "${#left[@]}" -gt 0 ]; then
    e2e_log "still blocklisted after range rm: ${left[*]} (blocklist: $(echo "$listed" | tr '\n' ' '))"
    return 1
  fi
  e2e_log "fence lifted: $(tr '\n' ' ' <"$KTEST_W/fence.cidrs")(blocklist now: ${listed:-empty})"
  rm -f "$KTEST_W/fence.cidrs"
}

# ktest_fence_workload_start NAME DEV — guest/fence_workload.py writing DEV (a mapped rbd device)
# directly; waits for its first 3 writes. Its heartbeat is read as the other workload's
# (ktest_writes, ktest_wait_writes, ktest_wait_stall).
ktest_fence_workload_start() {
  local name=$1 dev=$2
  rm -f "$KTEST_W/$name.stop" "$KTEST_W/$name.hb" "$KTEST_W/$name.state"
  e2e_spawn "$KTEST_SCOPE" "workload-$name" - "$KTEST_W/$name.log" \
    python3 "$KTEST_SRC/guest/fence_workload.py" "$dev" 64 "$KTEST_W/$name.hb" "$KTEST_W/$name.stop" \
    "$KTEST_W/$name.state"
  ktest_wait_writes "$name" 3 60 || e2e_die "the fence workload did not start writing $dev: $(cat "$KTEST_W/$name.log")"
}

# ktest_fence_scenario_start IMAGE WORKLOAD — what both fence scenarios start from: the holder,
# the plugin's pod, the node's own address on storage and the operator's pod; IMAGE created and
# mapped through the holder (`netns-exec map` from the plugin's pod, force-unmapped at cleanup),
# the fence workload WORKLOAD writing it; then fence-info's JSON, as the plugin runs it, in
# KTEST_W/fence.json. Sets KTEST_FENCE_HOLDER_ADDR (the holder's net1 IPv4) and KTEST_FENCE_DEV.
ktest_fence_scenario_start() {
  local img=$1 name=$2 addr
  ktest_holder_start
  ktest_plugin_start plugin
  ktest_node_storage_attach
  ktest_fence_admin_start
  addr=$(ip -n "$KTEST_HOLDER_NS" -4 -o addr show dev net1 | awk '{ print $4 }')
  KTEST_FENCE_HOLDER_ADDR=${addr%/*}
  [ -n "$KTEST_FENCE_HOLDER_ADDR" ] || e2e_die "the holder's namespace has no IPv4 address on net1"
  ktest_rbd_create "$KTEST_PLUGIN_NS" "$img"
  ktest_at_cleanup ktest_unmap_image_force "$img"
  KTEST_FENCE_DEV=$(ktest_map "$KTEST_PLUGIN_NS" "$img")
  e2e_log "netns-exec map gave $KTEST_FENCE_DEV (holder's address $KTEST_FENCE_HOLDER_ADDR, node's $KTEST_NODE_ADDR)"
  ktest_fence_workload_start "$name" "$KTEST_FENCE_DEV"
  ktest_exec "$KTEST_PLUGIN_NS" fence-info --node-netns /proc/1/ns/net --output json >"$KTEST_W/fence.json"
  jq -Mc '{node: .node.addresses, holders: [.holders[] | {cluster_id, alive, addresses}], cidrs, complete}' "$KTEST_W/fence.json"
}

# ktest_fence_expected STATE — from a fence workload's STATE (or a copy of it taken at some
# moment), set KTEST_W_{WRITES,ERRORS,STALL,SHA256,SIZE}: what the writes completed by then left.
ktest_fence_expected() {
  local writes errors max_stall_ms expected_sha256 expected_size out
  out=$(python3 "$KTEST_SRC/guest/fence_workload.py" --expected "$1") || e2e_die "cannot read the workload's state $1"
  eval "$out"
  KTEST_W_WRITES=$writes KTEST_W_ERRORS=$errors KTEST_W_STALL=$max_stall_ms
  KTEST_W_SHA256=$expected_sha256 KTEST_W_SIZE=$expected_size
}

# ktest_fence_workload_stop NAME [LIMIT] — stop it and wait (bounded) for it to exit; then
# ktest_fence_expected of its last state.
ktest_fence_workload_stop() {
  local name=$1 limit=${2:-60}
  touch "$KTEST_W/$name.stop"
  e2e_wait_until "$limit" "the workload $name to exit" ktest__untracked "workload-$name" ||
    { ktest_stacks "workload-$name"; e2e_die "the workload $name did not exit within ${limit}s ($(ktest_writes "$name") writes): $(tail -n 5 "$KTEST_W/$name.log")"; }
  tail -n 5 "$KTEST_W/$name.log"
  ktest_fence_expected "$KTEST_W/$name.state"
}
ktest__untracked() { ! e2e_tracked_pid "$KTEST_SCOPE" "$1" >/dev/null; }

# ktest_expect_rbd_raw FIGURE IMAGE — IMAGE (pool rbd) must begin with the fence workload's
# KTEST_W_SHA256/KTEST_W_SIZE and hold only zeros after it; the host reads it with rbd export.
ktest_expect_rbd_raw() {
  echo "KTEST-VERIFY $1 rbd-raw rbd/$2 $KTEST_W_SHA256 $KTEST_W_SIZE"
}
