# shellcheck shell=bash
# Shared helpers of the end-to-end harness: logging, bounded waiting, and "scopes".
#
# A scope is a directory that records everything created on its behalf — processes (by PID and
# start time), runc containers, mounts, network namespaces — so that e2e_scope_cleanup can undo
# all of it, by PID and by recorded name, even after a failure half way. The Ceph cluster lives in
# one scope that outlives the scenarios (a ctest fixture); every scenario has its own.
#
# Nothing here kills or deletes by a guessed name: only what a scope recorded is touched, and a
# recorded PID is signalled only while its start time still matches (PIDs get reused).

E2E_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

e2e_log() { printf '[e2e %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
e2e_die() {
  printf '[e2e %s] FAIL: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2
  exit 1
}
e2e_section() { printf '\n=== %s ===\n' "$*"; }

# e2e_wait_until SECONDS DESCRIPTION CMD... — run CMD every 0.2 s until it succeeds; bounded.
e2e_wait_until() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  while ! "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      e2e_log "timed out after ${limit}s waiting for: $what"
      return 1
    fi
    sleep 0.2
  done
}

# Field 22 of /proc/PID/stat: the start time, which tells a live PID from a reused one.
e2e_starttime() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  # shellcheck disable=SC2086
  set -- $stat
  echo "${20}"
}

e2e_scope_new() {
  local dir=$1
  mkdir -p "$dir"/pids "$dir"/netns "$dir"/containers "$dir"/mounts "$dir"/links
}

# e2e_track_link SCOPE NETNS DEV — a link this scope created in a namespace it does not own.
e2e_track_link() {
  echo "$2 $3" >"$1/links/$2.$3"
}

e2e_track_pid() {
  local scope=$1 name=$2 pid=$3 start
  start=$(e2e_starttime "$pid") || return 1
  echo "$pid $start" >"$scope/pids/$name"
}

# Echo the PID recorded under NAME if that process is still the one we started and has not exited
# (a zombie waiting for its reaper counts as gone).
e2e_tracked_pid() {
  local file=$1/pids/$2 pid start
  [ -f "$file" ] || return 1
  read -r pid start <"$file"
  e2e_pid_alive "$pid" "$start" || return 1
  echo "$pid"
}

# e2e_pid_alive PID START — PID is still the process that had START time, and not a zombie.
e2e_pid_alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  # shellcheck disable=SC2086
  set -- "$1" "$2" $stat
  [ "$3" != Z ] && [ "${22}" = "$2" ]
}

# In a background child: close every fd above 2. Bash keeps copies of redirected fds (e.g. the
# pipe of a $(...) or ctest's output pipe, saved as fd 10 or 255) without close-on-exec, and a
# daemon that inherits one keeps its reader waiting for EOF until the daemon dies.
e2e_close_inherited_fds() {
  local fd
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
  done
  return 0
}

# e2e_spawn SCOPE NAME NETNS LOG CMD... — start CMD in the background inside network namespace
# NETNS (a name under /run/netns, or "-" for the current one), in its own session so that a
# ctest timeout on a scenario does not take a fixture daemon with it; record its PID.
# nsenter execs the command, so $! is the daemon itself.
e2e_spawn() {
  local scope=$1 name=$2 ns=$3 log=$4
  shift 4
  local enter=()
  [ "$ns" = - ] || enter=(nsenter --net="/run/netns/$ns" --)
  (
    e2e_close_inherited_fds
    exec setsid "${enter[@]}" "$@"
  ) </dev/null >"$log" 2>&1 &
  local pid=$!
  disown "$pid" # no job-control notices when it is killed later
  # The exec chain (setsid -> nsenter -> CMD) keeps the PID; record it once it is the command.
  e2e_wait_until 5 "$name to exec" e2e__is_not_launcher "$pid" || true
  e2e_track_pid "$scope" "$name" "$pid" || e2e_die "$name exited at once; see $log: $(tail -n 5 "$log")"
}
e2e__is_not_launcher() {
  local comm
  comm=$(cat "/proc/$1/comm" 2>/dev/null) || return 0
  [ "$comm" != setsid ] && [ "$comm" != nsenter ]
}

# The descendants of PID (children first-level first), read from /proc: a tracked helper subshell
# dies of a TERM without taking the command it waits for along.
e2e__descendants() {
  local pid=$1 child
  for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
    echo "$child"
    e2e__descendants "$child"
  done
}

# Stop every process a scope recorded, and their descendants: TERM, up to GRACE seconds, then KILL.
e2e_scope_kill() {
  local scope=$1 grace=${2:-2} f pid start child victims=()
  # Any of these processes may exit while we look: a start time that can no
  # longer be read means the process is gone, and it is skipped (never an
  # error, which under set -e would end the caller's clean-up half-way).
  for f in "$scope"/pids/*; do
    [ -e "$f" ] || continue
    pid=$(e2e_tracked_pid "$scope" "$(basename "$f")") || continue
    start=$(e2e_starttime "$pid") || continue
    victims+=("$pid:$start")
    for child in $(e2e__descendants "$pid"); do
      start=$(e2e_starttime "$child") || continue
      victims+=("$child:$start")
    done
  done
  [ "${#victims[@]}" -gt 0 ] || { rm -f "$scope"/pids/*; return 0; }
  # Signal a victim only while its start time still matches what we saw.
  e2e__signal_victims() {
    local sig=$1 v alive=1
    shift
    for v in "$@"; do
      if e2e_pid_alive "${v%%:*}" "${v#*:}"; then
        alive=0
        [ "$sig" = 0 ] || kill -"$sig" "${v%%:*}" 2>/dev/null || true
      fi
    done
    return $alive
  }
  e2e__signal_victims TERM "${victims[@]}" || true
  local deadline=$((SECONDS + grace))
  while e2e__signal_victims 0 "${victims[@]}" && [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.1
  done
  e2e__signal_victims KILL "${victims[@]}" || true
  rm -f "$scope"/pids/*
}

e2e_netns_add() {
  local scope=$1 name=$2
  ip netns add "$name"
  : >"$scope/netns/$name"
  ip -n "$name" link set lo up
}

e2e_netns_del() {
  local scope=$1 name=$2
  ip netns del "$name" 2>/dev/null || true
  rm -f "$scope/netns/$name"
}

e2e_track_mount() {
  local scope=$1 path=$2
  local key
  key=$(printf '%s' "$path" | md5sum | cut -c1-16)
  printf '%s\n' "$path" >"$scope/mounts/$key"
}

# Recorded mount points, deepest first (a volume under the kubelet directory before the directory).
e2e__scope_mounts() {
  local f
  for f in "$1"/mounts/*; do
    [ -e "$f" ] && cat "$f"
  done | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2-
}

# Undo everything a scope recorded, in dependency order: containers hold processes inside the
# namespaces, processes hold mounts busy, and a namespace goes away with its last user.
e2e_scope_cleanup() {
  local scope=$1 f path
  [ -d "$scope" ] || return 0
  if declare -F e2e_pod_cleanup_all >/dev/null; then
    e2e_pod_cleanup_all "$scope"
  fi
  # Unmounting a fuse mount ends its daemon; a mount still busy is detached lazily.
  while IFS= read -r path; do
    if mountpoint -q "$path" 2>/dev/null; then
      umount "$path" 2>/dev/null || umount -l "$path" 2>/dev/null || true
    fi
  done < <(e2e__scope_mounts "$scope")
  rm -f "$scope"/mounts/*
  e2e_scope_kill "$scope" 2
  # Links first: they may live in a namespace of another scope (the storage network).
  for f in "$scope"/links/*; do
    [ -e "$f" ] || continue
    local ns dev
    read -r ns dev <"$f"
    ip -n "$ns" link del "$dev" 2>/dev/null || true
    rm -f "$f"
  done
  for f in "$scope"/netns/*; do
    [ -e "$f" ] || continue
    e2e_netns_del "$scope" "$(basename "$f")"
  done
}
