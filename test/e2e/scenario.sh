#!/usr/bin/env bash
# Run one e2e scenario (test/e2e/scenarios/NAME.sh) against the running fixture, in its own scope:
# whatever the scenario creates is removed when it ends, pass or fail.
#   scenario.sh NAME
# Environment (set by ctest): E2E_STATE_FILE, E2E_BUILD_DIR, E2E_HOLDER_BIN, E2E_EXEC_BIN.
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/all.sh
. "$here/lib/all.sh"

if [ "$(id -u)" -ne 0 ]; then
  echo "e2e: needs root (it creates network namespaces and runc containers); skipped"
  exit 77
fi
name=${1:?usage: scenario.sh NAME}
[ -f "$here/scenarios/$name.sh" ] || e2e_die "no scenario $name"
e2e_run_load

E2E_SCOPE=$E2E_RUN/scn-$name
# Unique to this run of the scenario: what it creates in the fixture's Ceph clusters (which outlive
# it) is named with it, so the same scenario can run again against the same fixture.
E2E_TAG=$(printf '%x%x' "$(date +%s)" "$$")
e2e_scope_cleanup "$E2E_SCOPE" # a previous attempt killed before its trap ran
e2e_scope_new "$E2E_SCOPE"
trap 'e2e_log "failed at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND"' ERR
trap 'rc=$?; e2e_scope_cleanup "$E2E_SCOPE"; rm -rf "$E2E_SCOPE"; exit $rc' EXIT
E2E_T0=$SECONDS
# shellcheck disable=SC1090
. "$here/scenarios/$name.sh"
e2e_log "PASS $name ($((SECONDS - E2E_T0))s)"
