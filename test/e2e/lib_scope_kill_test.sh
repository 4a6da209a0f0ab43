#!/usr/bin/env bash
# e2e_scope_kill while the scope's processes exit under it: a parent that starts and reaps a child
# every few microseconds makes every scan meet a descendant that is already gone. The clean-up must
# neither stop half-way (under set -e a failed start-time read used to end the caller) nor leave a
# tracked process alive. Needs no root: the processes run in this namespace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/common.sh
. "$here/lib/common.sh"

work=$(mktemp -d)
scope=$work/scope
# Whatever happens, nothing this test started outlives it: tracked PIDs, by PID and start time.
finish() {
  local f pid start
  for f in "$scope"/pids/*; do
    [ -e "$f" ] || continue
    read -r pid start <"$f"
    ! e2e_pid_alive "$pid" "$start" || kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap finish EXIT
e2e_scope_new "$scope"

churn() { e2e_spawn "$scope" churn - "$work/churn.log" bash -c 'while :; do /bin/true & wait; done'; }
for round in 1 2 3 4 5 6 7 8; do
  churn
  e2e_spawn "$scope" quiet - "$work/quiet.log" sleep 300
  read -r churn_pid churn_start <"$scope/pids/churn"
  read -r quiet_pid quiet_start <"$scope/pids/quiet"
  e2e_scope_kill "$scope" 2
  if e2e_pid_alive "$churn_pid" "$churn_start" || e2e_pid_alive "$quiet_pid" "$quiet_start"; then
    echo "FAIL round $round: e2e_scope_kill left a tracked process alive" >&2
    exit 1
  fi
  if [ -n "$(ls -A "$scope/pids")" ]; then
    echo "FAIL round $round: e2e_scope_kill left records in $scope/pids: $(ls "$scope/pids")" >&2
    exit 1
  fi
done
echo "e2e_scope_kill: 8 rounds against an exiting process tree, nothing left"
