# shellcheck shell=bash
# Helpers shared by the scenario files (sourced by scenario.sh after all.sh).

# e2e_plugin_exec POD ARGS... — the executor, run by the plugin inside its pod.
e2e_plugin_exec() {
  local pod=$1
  shift
  e2e_pod_exec "$pod" "$E2E_PLUGIN_EXEC" "$@"
}

# e2e_expect_fail_fast SECONDS DESCRIPTION CMD... — CMD must fail, and within SECONDS.
e2e_expect_fail_fast() {
  local limit=$1 what=$2 t0 rc=0
  shift 2
  t0=$(date +%s%N)
  "$@" >"$E2E_SCOPE/out" 2>&1 || rc=$?
  local ms=$((($(date +%s%N) - t0) / 1000000))
  [ "$rc" -ne 0 ] || e2e_die "$what: succeeded but must fail; output: $(cat "$E2E_SCOPE/out")"
  [ "$ms" -le $((limit * 1000)) ] || e2e_die "$what: failed only after ${ms} ms (limit ${limit}s)"
  e2e_log "$what: failed as expected in ${ms} ms (exit $rc): $(tail -n 1 "$E2E_SCOPE/out")"
}

# e2e_ceph_established JSON IP LO HI — the established sessions to IP on a port in [LO, HI] in an
# `inspect --json` document. A Ceph CLI's closed connections (TIME-WAIT) are not sessions: a
# namespace where one just ran still has none.
e2e_ceph_established() {
  jq --arg ip "$2" --argjson lo "$3" --argjson hi "$4" '[.ceph_sessions[]
    | select(.peer_address == $ip and .peer_port >= $lo and .peer_port <= $hi) | .established] | add // 0' <<<"$1"
}

# e2e_ceph_session_count JSON IP — the established sessions to the Ceph cluster at IP: monitor
# (3300, 6789) and OSDs (6800-7568).
e2e_ceph_session_count() {
  echo $(($(e2e_ceph_established "$1" "$2" 3300 3300) + $(e2e_ceph_established "$1" "$2" 6789 6789) +
    $(e2e_ceph_established "$1" "$2" 6800 7568)))
}

# e2e_mon_and_osd_sessions JSON IP — established sessions to IP's monitor and to an OSD, as a live
# client (rbd watch) keeps them.
e2e_mon_and_osd_sessions() {
  [ $(($(e2e_ceph_established "$1" "$2" 3300 3300) + $(e2e_ceph_established "$1" "$2" 6789 6789))) -ge 1 ] &&
    [ "$(e2e_ceph_established "$1" "$2" 6800 7568)" -ge 1 ]
}

# e2e_rbd_watchers CLUSTER POOL/IMAGE — the IP addresses of an image's watchers as Ceph sees them
# (`rbd status`, run by the cluster's admin from the cluster's own namespace): the address the
# watching client's sessions come from, so the storage interface of the namespace it runs in.
e2e_rbd_watchers() {
  e2e_ceph_run "$E2E_RUN/$1" "$(e2e_cluster_var "$1" E2E_CEPH_NETNS)" \
    rbd --client-mount-timeout 5 status --format json "$2" |
    jq -r '.watchers[].address | sub("^[a-z]+[0-9]*:"; "") | split(":")[0]'
}

# e2e_rbd_watched_from CLUSTER POOL/IMAGE IP — Ceph lists a watcher of the image at IP.
e2e_rbd_watched_from() { e2e_rbd_watchers "$1" "$2" | grep -xF "$3" >/dev/null; }

# e2e_link_in_holder_only LINK — LINK (made through the executor) is in the holder's namespace
# ($E2E_HOLDER_NS) and not in the plugin's ($E2E_PLUGIN_NS), which could have made it as well.
e2e_link_in_holder_only() {
  ip -n "$E2E_HOLDER_NS" -br addr show "$1" || e2e_die "$1 is not in the holder's namespace"
  ! ip -n "$E2E_PLUGIN_NS" link show "$1" >/dev/null 2>&1 || e2e_die "$1 was created in the plugin's namespace"
}

# e2e_bg SCOPE NAME LOG CMD... — a background helper process of the scenario, tracked by PID
# (also left in E2E_BG_PID); its exit status lands in LOG.rc. Call it without redirections and
# outside $(...): see e2e_close_inherited_fds.
e2e_bg() {
  local scope=$1 name=$2 log=$3
  shift 3
  rm -f "$log.rc"
  (
    e2e_close_inherited_fds
    rc=0
    "$@" || rc=$?
    echo "$rc" >"$log.rc"
  ) </dev/null >"$log" 2>&1 &
  E2E_BG_PID=$!
  disown "$E2E_BG_PID"
  e2e_track_pid "$scope" "$name" "$E2E_BG_PID" || true
}

# e2e_pid_from_file FILE SECONDS — wait for FILE (a pid written by a process in a hostPID pod).
e2e_pid_from_file() {
  e2e_wait_until "$2" "pid file $1" test -s "$1" || return 1
  cat "$1"
}

# e2e_pid_gone SCOPE NAME — the tracked process has exited.
e2e_pid_gone() { ! e2e_tracked_pid "$1" "$2" >/dev/null; }

# Kernel-answered ping flows (scenario c's counting, for other scenarios).
# e2e_ping_start SCOPE NAME NETNS ADDR — continuous pings from namespace NETNS, 20 per second,
# into $SCOPE/NAME.log.
e2e_ping_start() {
  e2e_bg "$1" "$2" "$1/$2.log" nsenter --net="/run/netns/$3" -- ping -n -i 0.05 -W 1 "$4"
}

# e2e_ping_stop SCOPE NAME — SIGINT makes ping print its summary; wait for it, bounded. The tracked
# process is the subshell that waits for ping; ping (nsenter exec'd it) is its only child.
e2e_ping_stop() {
  local sub child
  sub=$(e2e_tracked_pid "$1" "$2") || e2e_die "ping $2 is not running: $(tail -n 3 "$1/$2.log")"
  for child in $(cat "/proc/$sub/task/$sub/children"); do
    kill -INT "$child"
  done
  e2e_wait_until 5 "ping to print its summary" grep -q 'packets transmitted' "$1/$2.log" ||
    e2e_die "ping did not finish"
  rm -f "$1/pids/$2"
}

# e2e_ping_stats LOG — "SENT RECEIVED LOST": SENT from ping's summary, RECEIVED the distinct
# sequence numbers answered, LOST those of 1..SENT-1 never answered (the last one may still have
# been in flight when ping was stopped).
e2e_ping_stats() {
  local sent
  sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$1")
  sed -n 's/.*icmp_seq=\([0-9]*\) .*/\1/p' "$1" | sort -un | awk -v sent="$sent" '
    { seen[$1] = 1; n++ }
    END { lost = 0; for (i = 1; i < sent; i++) if (!(i in seen)) lost++; print sent, n + 0, lost }'
}

# e2e_figure KEY TEXT... — record this run's figure KEY as "FIGURE KEY: TEXT" in e2e-figures.txt
# (next to the run state; ./dev test prints the file, ctest hides a passing test's output) and
# print it. An earlier line with the same key is replaced, whichever scenario wrote it and however
# often it ran: every scenario owns its keys, none rewrites another's. The file stays sorted by key.
e2e_figure() {
  local key=$1 file=${E2E_STATE_FILE%/*}/e2e-figures.txt
  shift
  local line="FIGURE $key: $*"
  echo "$line"
  (
    flock 9
    { [ ! -f "$file" ] || awk -v k="FIGURE $key:" 'index($0, k) != 1' "$file"; echo "$line"; } |
      sort -s -k2,2 >"$file.tmp"
    mv "$file.tmp" "$file"
  ) 9>>"$file.lock"
}
