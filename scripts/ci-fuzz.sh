#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time.
#   scripts/ci-fuzz.sh [BUILD_DIR_FUZZ [SECONDS]]
# BUILD_DIR_FUZZ (default build-fuzz) is configured with clang and
# -DNETNS_FUZZ=ON if needed, then the fuzzers are built. SECONDS (default 60)
# is the time per target. Each target starts from its committed seeds
# (test/fuzz/corpus/<name>) and regressions (test/fuzz/regressions/<name>);
# inputs it discovers stay in BUILD_DIR_FUZZ/fuzz-work, not in the repo.
# A crash, leak, timeout or out-of-memory fails the run; its input is copied
# into test/fuzz/regressions/<name>/ and named in the message: commit it with
# the fix, and every ordinary build replays it (ctest -R fuzz_replay).
# Only one target runs at a time: the machine is shared.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-fuzz}
seconds=${2:-60}
case "$seconds" in '' | *[!0-9]*) echo "ci-fuzz: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
fuzz_src=$here/test/fuzz

if ! command -v clang++ >/dev/null; then
  echo "ci-fuzz: clang++ not found (Debian packages clang and libclang-rt-14-dev; ./dev setup installs them)" >&2
  exit 2
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DNETNS_FUZZ=ON -DNETNS_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$build" --target netns_fuzzers -j "${NETNS_JOBS:-$(nproc)}" >/dev/null

targets=()
for bin in "$build"/test/fuzz/fuzz_*; do
  [ -x "$bin" ] && targets+=("$(basename "$bin")")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "ci-fuzz: no fuzz targets in $build/test/fuzz (was it configured with -DNETNS_FUZZ=ON?)" >&2
  exit 2
fi

failed=()
start=$SECONDS
for bin in "${targets[@]}"; do
  name=${bin#fuzz_}
  work=$build/fuzz-work/$name
  artifacts=$work/artifacts
  regressions=$fuzz_src/regressions/$name
  rm -rf "$artifacts"
  mkdir -p "$work/corpus" "$artifacts"
  dirs=("$work/corpus" "$fuzz_src/corpus/$name")  # new inputs go to the first
  [ -d "$regressions" ] && dirs+=("$regressions")
  log=$work/fuzz.log
  t0=$SECONDS
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a parser that
  # trusts a length field and allocates gigabytes is a bug too.
  status=0
  "$build/test/fuzz/$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "${dirs[@]}" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  found=("$artifacts"/*)
  if [ $status -eq 0 ] && [ ! -e "${found[0]}" ]; then
    printf 'ci-fuzz: %-16s ok   %8s runs in %3ss\n' "$name" "${runs:-?}" "$((SECONDS - t0))"
    continue
  fi
  failed+=("$name")
  mkdir -p "$regressions"
  kept=()
  for f in "${found[@]}"; do
    [ -e "$f" ] || continue
    cp "$f" "$regressions/"
    kept+=("$regressions/$(basename "$f")")
  done
  echo "ci-fuzz: $name FAILED (exit $status); the libFuzzer report:" >&2
  grep -E '^(==[0-9]+==|SUMMARY|.*property violated|.*runtime error|.*terminate called|.*what\(\))' "$log" | head -20 >&2 || tail -30 "$log" >&2
  if [ ${#kept[@]} -gt 0 ]; then
    echo "ci-fuzz: input kept as a regression in $regressions/ — commit it with the fix:" >&2
    printf '  %s\n' "${kept[@]}" >&2
  else
    echo "ci-fuzz: no input was saved; full log: $log" >&2
  fi
done

echo "ci-fuzz: ${#targets[@]} targets, $((SECONDS - start)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "ci-fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
