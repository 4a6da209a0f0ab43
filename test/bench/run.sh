#!/usr/bin/env bash
# Runs every benchmark side by side with its anchor and writes the report.
#
#   test/bench/run.sh BUILD_DIR [--quick] [--out DIR]
#
# BUILD_DIR   a configured and built tree (./dev bench builds it first)
# --quick     each benchmark once, briefly, hyperfine --runs 3: proves the
#             pipeline works (ctest bench.smoke.run_sh); the figures mean nothing
# --out DIR   where REPORT.md and the plots go (default: test/bench/ in the
#             source tree, i.e. the committed report); raw results go to
#             DIR/raw (default: BUILD_DIR/bench-results)
#
# Needs root (namespaces). Exit 77 without it (ctest: skipped). Everything it
# starts (namespace children, the holder) is killed by PID on exit and every
# temporary directory removed; nothing is sent on any network.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
build=$(cd "$1" && pwd)
shift
quick=0
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    *) usage ;;
  esac
  shift
done
if [ "$(id -u)" -ne 0 ]; then
  echo "run.sh: skipped: needs root (creates network namespaces; run: sudo ./dev bench)" >&2
  exit 77
fi
if [ -n "$out" ]; then
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  raw=$out/raw
else
  out=$here
  raw=$build/bench-results
fi
rm -rf "$raw"
mkdir -p "$raw"

log() { printf 'run.sh: %s\n' "$*" >&2; }

# --- cleanup: only what this script started, by PID -------------------------
pids=()
work=$(mktemp -d /tmp/netns-bench.XXXXXX)
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    # Bounded: the holder exits on SIGTERM; KILL whatever did not after 2 s.
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$quick" = 1 ]; then
  export NETNS_BENCH_QUICK=1
  min_time=0.001; reps=1; runs=3; warmup=1
else
  min_time=0.5; reps=5; runs=300; warmup=30
fi

# --- Google Benchmark binaries (figures 1, 2, 3, 5, 6 and any *_bench added) -
# Fig. 1 and fig. 6 interleave repetitions of their variants at random so that
# the noise of a shared machine hits library and anchors alike; the report uses
# medians.
bench_flags() {
  local name=$1
  local common=(--benchmark_min_time="$min_time" --benchmark_format=console)
  case "$name" in
    spawn_latency_bench | inspect_bench)
      echo "${common[@]}" --benchmark_repetitions=$((reps * 2)) \
        --benchmark_enable_random_interleaving=true ;;
    holder_wake_bench) echo "${common[@]}" --benchmark_repetitions=1 ;;
    *) echo "${common[@]}" --benchmark_repetitions="$reps" ;;
  esac
}
# Sweeps (figures 2 and 3) compare arguments measured at different moments, so
# the whole sweep runs `reps` times, one repetition each, and the report takes
# the median over the passes: load drift then spreads over every argument.
passes() {
  case "$1" in
    caller_rss_bench | spawn_threads_bench | spawn_bench) echo "$reps" ;;
    *) echo 1 ;;
  esac
}
# figure 8's candidate: netns-exec linked fully static, measured in the same
# rounds as the build's (link-static-candidate.sh says why it is not the
# build's). A build that cannot make it is measured without it.
if [ -f "$build/build.ninja" ] &&
   "$here/link-static-candidate.sh" "$build" >"$raw/netns-exec-static.txt" 2>&1; then
  export NETNS_BENCH_SHIM_ALT=$build/test/bench/netns-exec-static
else
  log "no static netns-exec candidate for figure 8 (see $raw/netns-exec-static.txt)"
fi
found=0
for bin in "$build"/test/bench/*_bench; do
  if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then continue; fi
  found=1
  name=$(basename "$bin")
  n=$(passes "$name")
  for pass in $(seq 1 "$n"); do
    log "$name (pass $pass of $n)"
    flags=$(bench_flags "$name")
    [ "$n" -gt 1 ] && flags="$flags --benchmark_repetitions=1"
    # shellcheck disable=SC2086
    "$bin" $flags --benchmark_out="$raw/$name.pass$pass.json" --benchmark_out_format=json \
      >"$raw/$name.pass$pass.txt" 2>"$raw/$name.pass$pass.err" || {
      status=$?
      log "$name failed (exit $status):"; cat "$raw/$name.pass$pass.err" >&2; exit 1
    }
  done
done
if [ "$found" = 0 ]; then
  log "no benchmark binaries in $build/test/bench: build first (cmake --build $build)"
  exit 1
fi

# --- a holder for the whole-process comparisons -------------------------------
# The real netns-holder in a namespace of its own when it is built (then the
# CLI validates a real holder record, as in production); else a plain
# namespace child.
holder_bin=$build/holder/netns-holder
exec_bin=$build/executor/cli/netns-exec
id=bench-$$
if [ -x "$holder_bin" ]; then
  # setpriv --pdeathsig: the holder dies with this script even if the script
  # itself is SIGKILLed (a ctest timeout) and its trap never runs.
  setpriv --pdeathsig KILL -- unshare --net -- "$holder_bin" --cluster-id "$id" --dir "$work" \
    >"$raw/holder.log" 2>&1 &
  pids+=($!)
  ns=$work/$id.net.ns
  for _ in $(seq 100); do [ -e "$ns" ] && break; sleep 0.05; done
  [ -e "$ns" ] || { log "netns-holder did not publish $ns:"; cat "$raw/holder.log" >&2; exit 1; }
  echo "netns-holder" >"$raw/namespace-kind"
else
  setpriv --pdeathsig KILL -- unshare --net -- sleep 3600 &
  pids+=($!)
  ns=/proc/${pids[-1]}/ns/net
  for _ in $(seq 100); do
    [ "$(readlink "$ns" 2>/dev/null)" != "$(readlink /proc/self/ns/net)" ] && break; sleep 0.05
  done
  echo "unshare --net child (netns-holder not built)" >"$raw/namespace-kind"
fi

# --- figure 7: the CLI as a whole process vs nsenter ---------------------------
# Context for the ratio: `true` alone (the floor) and each binary's start-up
# without spawning anything (`netns-exec --help`, `nsenter --version`).
true_bin=$(command -v true)
hf=(hyperfine -N --style basic --warmup "$warmup" --runs "$runs")
if [ -x "$exec_bin" ]; then
  log "hyperfine: netns-exec --net vs nsenter --net"
  "${hf[@]}" --export-json "$raw/cli.json" \
    -n nsenter "nsenter --net=$ns $true_bin" \
    -n netns-exec "$exec_bin --net=$ns -- $true_bin" \
    -n plain "$true_bin" \
    -n netns-exec-startup "$exec_bin --help" \
    -n nsenter-startup "nsenter --version" >"$raw/cli.txt" 2>&1 || { cat "$raw/cli.txt" >&2; exit 1; }
else
  log "netns-exec not built: figure 7 skipped"
fi

# --- figure 4: the holder's RSS and size vs catatonit -P (the holder's script) ---
if [ -x "$src/scripts/measure-holder-rss.sh" ] && [ -x "$holder_bin" ]; then
  log "holder RSS vs catatonit -P"
  [ "$quick" = 1 ] && export NETNS_RSS_SAMPLES=1
  "$src/scripts/measure-holder-rss.sh" "$holder_bin" >"$raw/holder-rss.txt" 2>"$raw/holder-rss.err" \
    || { log "measure-holder-rss.sh failed:"; cat "$raw/holder-rss.err" >&2; exit 1; }
else
  log "netns-holder or scripts/measure-holder-rss.sh missing: figure 4 skipped"
fi

# --- how far a reader of resolve() walks (not a timing: the compiler's call graph) ---
log "source walk of exec::resolve()"
python3 "$here/source_walk.py" "$build" --out "$raw/source-walk.txt" >/dev/null

# --- the report and the plots ---------------------------------------------------
log "report"
mode=full
[ "$quick" = 1 ] && mode=quick
python3 "$here/report.py" --raw "$raw" --out "$out" --mode "$mode" --source "$src" \
  --build "$build"
log "wrote $out/REPORT.md and $out/plots/"
