#!/usr/bin/env bash
# Builds the tree twice, with ASan+UBSan and with TSan, each in its own build
# dir, and runs the unit and privileged suites in both (root for the
# privileged ones; they skip otherwise). The privileged suite's ENOSYS runs
# (label enosys, test/enosys) are left out: they test fallbacks, not memory,
# and the plain build runs them.
#   scripts/ci-sanitizers.sh [BUILD_PREFIX] [-- extra ctest args]
# Build dirs: BUILD_PREFIX-asan and BUILD_PREFIX-tsan (default build-san-*).
# Any sanitizer report fails the test that triggered it: the runtimes are set
# to halt on the first error and exit non-zero.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=$here/build-san
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  prefix=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
jobs=${NETNS_JOBS:-$(nproc)}

# exitcode=66 is what ctest sees; the report itself is in the test's output.
# detect_leaks: forked children leave with _exit, which skips the leak check,
# so only real leaks of the test process are reported.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=0:exitcode=66:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:exitcode=66}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1}

run_tree() {
  local kind=$1 option=$2 dir=$prefix-$1 t0=$SECONDS
  echo "ci-sanitizers: $kind: configure and build in $dir"
  # -O1 -g1 (line tables only): what the sanitizers recommend, and much
  # cheaper to compile than RelWithDebInfo's full debug info on 2 cores.
  # run_tree is called in an `||` list, where `set -e` does not apply, so each
  # step checks its own status: a build that fails must fail the run.
  cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -g1" \
    "-DCMAKE_C_FLAGS=-O1 -g1" "-D$option=ON" -DNETNS_BUILD_BENCHMARKS=OFF >"$dir.log" 2>&1 ||
    { tail -n 30 "$dir.log"; echo "ci-sanitizers: $kind: configure failed" >&2; return 1; }
  cmake --build "$dir" -j "$jobs" >>"$dir.log" 2>&1 ||
    { grep -E -A5 'FAILED|error' "$dir.log" | head -n 60; echo "ci-sanitizers: $kind: build failed (log: $dir.log)" >&2; return 1; }
  echo "ci-sanitizers: $kind: built in $((SECONDS - t0)) s; running ctest -L 'unit|privileged' -LE enosys"
  local t1=$SECONDS status=0
  rm -f "$dir/ctest-last.log" "$dir/test/go-skips.txt"  # this run's skips, not an earlier one's
  # The log is kept: ./dev test counts its skips (scripts/test-summary.sh).
  (cd "$dir" && ctest -L 'unit|privileged' -LE enosys --output-on-failure -j "$jobs" "$@") 2>&1 | tee "$dir/ctest-last.log" ||
    status=$?
  echo "ci-sanitizers: $kind: tests took $((SECONDS - t1)) s (exit $status)"
  return $status
}

failed=()
run_tree asan NETNS_ASAN "$@" || failed+=(asan)
run_tree tsan NETNS_TSAN "$@" || failed+=(tsan)
if [ ${#failed[@]} -gt 0 ]; then
  echo "ci-sanitizers: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "ci-sanitizers: asan+ubsan and tsan clean"
