# shellcheck shell=bash
# Storage faults while the holder holds the sessions (the fault_* scenarios): each starts after
# KTEST_FAULT_RESTARTS plugin restarts, so the namespace the plugin had at map time is long gone,
# with the workload writing throughout; it measures whether the writes resumed after the fault,
# the errors and the longest single write+fsync (guest/workload.py), and reads what was written
# back from the server's side. Their figures: kernel.fault.<fault>.<client>.holder: writes W,
# errors N, resumed yes|no, max_stall_ms M, verified_from_server yes (run.sh adds the last one for
# Ceph's clients, from its check on the host). Needs guest/lib.sh (sourced first).

KTEST_FAULT_RESTARTS=3
# How long the holder's storage interface stays down. krbd: 30 s, the issue's figure and the
# monitor client's own limit (libceph's CEPH_MONC_PING_TIMEOUT: a mon session silent for 30 s is
# dropped and hunted for again), so the flap also exercises a new mon session; a shorter one only
# tests TCP's retransmission. NVMe/TCP: 15 s, three times nvme-tcp's default keep-alive timeout
# (5 s; ceph-csi's connect sets none): long enough for the host to declare the controller lost,
# tear its queues down and reconnect, which is what the scenario is after; it fails if the
# controller never left "live" during the flap (then this must grow), so a shorter flap cannot
# pass by measuring nothing.
KTEST_FLAP_KRBD_S=${KTEST_FLAP_KRBD_S:-30}
KTEST_FLAP_NVME_S=${KTEST_FLAP_NVME_S:-15}
# How long after the fault ends the writes have to resume (3 more completed) to count as resumed.
# 90 s: TCP's retransmission timer backs off to ~26 s after a 30 s outage, and libceph's OSD
# sessions resume on the next retransmission.
KTEST_FAULT_RESUME_S=90

# ktest_flap NS IFACE SECONDS [SAMPLE_CMD...] — IFACE in NS down for SECONDS, then up again;
# SAMPLE_CMD runs every second while it is down (its output logged). The link is restored by the
# scenario's cleanup whatever happens. Sets KTEST_FLAP_END ($SECONDS when it came up).
ktest_flap() {
  local ns=$1 ifc=$2 secs=$3 t0
  shift 3
  ktest_at_cleanup ktest__link_restore "$ns" "$ifc"
  ip -n "$ns" link set "$ifc" down
  t0=$SECONDS
  e2e_log "flap: $ifc in $ns down for ${secs}s ($(ktest_writes "${KTEST_FAULT_WORKLOAD:-none}") writes so far)"
  while [ $((SECONDS - t0)) -lt "$secs" ]; do
    [ "$#" -eq 0 ] || "$@"
    sleep 1
  done
  ip -n "$ns" link set "$ifc" up
  e2e_wait_until 10 "$ifc in $ns to come up" e2e__link_up "$ns" "$ifc" ||
    e2e_die "$ifc in $ns did not come up within 10 s: $(ip -n "$ns" -o link show "$ifc")"
  KTEST_FLAP_END=$SECONDS
  e2e_log "flap: $ifc in $ns up again after $((SECONDS - t0))s; routes: $(ip -n "$ns" -4 route show dev "$ifc" | tr '\n' ';')"
}
ktest__link_restore() {
  [ -e "/run/netns/$1" ] || return 0
  ip -n "$1" link set "$2" up
}

# ktest_fault_resume NAME LIMIT — whether the workload NAME completes 3 more writes within LIMIT
# seconds. Sets KTEST_F_RESUMED (yes|no) and KTEST_F_RESUME_S (seconds it took; "-" if not).
ktest_fault_resume() {
  local name=$1 limit=$2 start t0=$SECONDS
  start=$(ktest_writes "$name")
  KTEST_F_RESUMED=no KTEST_F_RESUME_S=-
  if e2e_wait_until "$limit" "3 more writes of $name" ktest__writes_at_least "$name" $((start + 3)); then
    KTEST_F_RESUMED=yes KTEST_F_RESUME_S=$((SECONDS - t0))
  fi
  e2e_log "$name: resumed $KTEST_F_RESUMED (${KTEST_F_RESUME_S}s), $(ktest_writes "$name") writes, $(ktest_write_errors "$name") errors"
}

# ktest_kmsg_since LINE — the kernel's messages after the first LINE lines (for the log).
ktest_kmsg_since() { dmesg | tail -n +$(($1 + 1)); }

# ktest_kernel_socks holder|node PORT — established kernel TCP sockets (held by no process) to
# PORT in the holder's namespace or in the node's own (the guest's initial one), as
# `netns-exec inspect --json --sockets` lists them there.
ktest_kernel_socks() {
  local args=(--cluster-id "$KTEST_CID" --config "$KTEST_CONFIG")
  [ "$1" = holder ] || args=(--netns /proc/1/ns/net --allow-own-netns --allow-host-netns --identity off)
  "$KTEST_EXEC_BIN" inspect "${args[@]}" --json --sockets |
    jq -e --argjson p "$2" '[.kernel_sockets[] | select(.peer_port == $p and .state == "ESTAB")] | length'
}
