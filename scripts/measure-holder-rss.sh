#!/usr/bin/env bash
# Resident memory of netns-holder next to `catatonit -P` (the pause process
# the holder is measured against), both started the same way: in a fresh
# network namespace of their own (unshare --net), as plain processes.
#
#   scripts/measure-holder-rss.sh [HOLDER_BIN | BUILD_DIR]      (root)
#
# Prints key=value lines (test/bench/report.py reads them):
#   holder_rss_kib, catatonit_rss_kib, rss_ratio, holder_size_bytes,
#   catatonit_size_bytes (stripped sizes: what a container image ships),
#   holder_file_bytes (as built, with debug info), samples.
# Every process it starts is stopped by PID; the temporary directory is removed.
set -euo pipefail

arg=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
if [ -d "$arg" ]; then holder=$arg/holder/netns-holder; else holder=$arg; fi
samples=${NETNS_RSS_SAMPLES:-3}
[ -x "$holder" ] || { echo "measure-holder-rss: no executable netns-holder at '$holder'" >&2; exit 2; }
catatonit=$(command -v catatonit) || { echo "measure-holder-rss: catatonit is not installed (apt-get install catatonit)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "measure-holder-rss: needs root (unshare --net)" >&2; exit 2; }

work=$(mktemp -d /tmp/holder-rss.XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Bounded wait (5 s) until a condition holds.
wait_for() {
  local i
  for i in $(seq 1 100); do
    if "$@"; then return 0; fi
    sleep 0.05
  done
  return 1
}
# Sleeping (not running or still exec'ing) and running the expected binary.
settled() { # pid exe
  [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ] &&
    grep -q '^State:[[:space:]]*S' "/proc/$1/status" 2>/dev/null
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

holder_real=$(readlink -f "$holder")
holder_rss=()
cat_rss=()
for n in $(seq 1 "$samples"); do
  id=rss$$x$n
  # unshare without --fork execs the program, so $! is the measured process.
  unshare --net -- "$holder" --cluster-id "$id" --dir "$work/dir" 2>"$work/holder-$n.err" &
  hp=$!
  pids+=("$hp")
  unshare --net -- "$catatonit" -P 2>"$work/catatonit-$n.err" &
  cp=$!
  pids+=("$cp")
  if ! wait_for test -L "$work/dir/$id.net.ns" || ! wait_for settled "$hp" "$holder_real"; then
    echo "measure-holder-rss: the holder did not publish within 5 s:" >&2
    cat "$work/holder-$n.err" >&2
    exit 1
  fi
  wait_for settled "$cp" "$(readlink -f "$catatonit")" ||
    { echo "measure-holder-rss: catatonit -P did not settle within 5 s" >&2; exit 1; }
  holder_rss+=("$(rss_kib "$hp")")
  cat_rss+=("$(rss_kib "$cp")")
  kill -TERM "$hp" "$cp"
  wait "$hp" || { echo "measure-holder-rss: the holder did not exit 0 on SIGTERM" >&2; exit 1; }
  wait "$cp" 2>/dev/null || true
  pids=()
done

median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
h=$(median "${holder_rss[@]}")
c=$(median "${cat_rss[@]}")
strip -o "$work/holder.stripped" "$holder"
strip -o "$work/catatonit.stripped" "$catatonit"

echo "samples=$samples"
echo "holder_rss_kib=$h"
echo "catatonit_rss_kib=$c"
awk -v h="$h" -v c="$c" 'BEGIN {printf "rss_ratio=%.3f\n", h / c}'
echo "holder_size_bytes=$(stat -c %s "$work/holder.stripped")"
echo "catatonit_size_bytes=$(stat -c %s "$work/catatonit.stripped")"
echo "holder_file_bytes=$(stat -c %s "$holder")"
echo "# per sample (KiB), holder vs catatonit: ${holder_rss[*]} vs ${cat_rss[*]}"
