#!/usr/bin/env bash
# What `./dev test` prints at its end, read from the logs the suites left.
#   scripts/test-summary.sh ran LOG SUITE     exit 0 when a SUITE.* scenario (not
#                                             its setup/cleanup) ran to a verdict
#                                             in that ctest log
#   scripts/test-summary.sh skips DIR...      the skip count: for each build DIR,
#                                             ctest's skipped tests (DIR/ctest-last.log)
#                                             plus Go's t.Skip lines (DIR/test/go-skips.txt)
# A skip is never a pass: every skipped test is named, and the total is the
# last line.
set -euo pipefail

# ctest's closing list: "\t 57 - unit.Foo.Bar (Skipped)".
ctest_skipped() { [ -f "$1" ] && sed -nE 's/^[[:space:]]*[0-9]+ - (.+) \(Skipped\)$/\1/p' "$1"; return 0; }

case "${1:-}" in
  ran)
    log=$2 suite=$3
    [ -f "$log" ] || exit 1
    # "Test  #57: e2e.c_plugin_restarts ....   Passed  63.2 sec" (or ***Failed,
    # ***Timeout, ...); a skip or a test that never started is no verdict.
    grep -E "Test +#[0-9]+: $suite\.[^ ]+ " "$log" | grep -vE "Test +#[0-9]+: $suite\.(setup|cleanup) " |
      grep -vqE '\*\*\*(Skipped|Not Run)|Not Run|Disabled' || exit 1
    ;;
  skips)
    shift
    total=0
    for dir in "$@"; do
      mapfile -t ct < <(ctest_skipped "$dir/ctest-last.log")
      go=()
      [ -f "$dir/test/go-skips.txt" ] && mapfile -t go <"$dir/test/go-skips.txt"
      n=$((${#ct[@]} + ${#go[@]}))
      total=$((total + n))
      [ ! -f "$dir/ctest-last.log" ] && { echo "skipped in $dir: no ctest log (not run)"; continue; }
      echo "skipped in $dir: $n (ctest ${#ct[@]}, go ${#go[@]})"
      [ ${#ct[@]} -eq 0 ] || printf '  %s\n' "${ct[@]}"
      [ ${#go[@]} -eq 0 ] || printf '  go: %s\n' "${go[@]}"
    done
    echo "skipped: $total"
    ;;
  *)
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
