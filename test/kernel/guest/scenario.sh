#!/usr/bin/env bash
# Inside the guest: one scenario (test/kernel/scenarios/$KTEST_NAME.sh) on the node guest/node.sh
# set up, in a scope of its own that is undone afterwards — except what a control left hanging on
# purpose (a stalled mapping is not tracked: unmounting it would hang).
set -Eeuo pipefail
src=$KTEST_SRC
# shellcheck source=../../e2e/lib/common.sh
. "$src/../e2e/lib/common.sh"
# shellcheck source=../../e2e/lib/net.sh
. "$src/../e2e/lib/net.sh"
E2E_RUN=/run/ktest
E2E_ID=k
KTEST_W=$E2E_RUN/scn-$KTEST_NAME-$KTEST_TAG
# shellcheck source=lib.sh
. "$src/guest/lib.sh"
mkdir -p "$KTEST_W/csi"
KTEST_SCOPE=$KTEST_W/scope
e2e_scope_new "$KTEST_SCOPE"
trap 'e2e_log "failed at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND"' ERR
trap 'rc=$?; [ $rc -eq 0 ] || ktest_on_failure; ktest_scenario_cleanup; exit $rc' EXIT
t0=$SECONDS
# shellcheck disable=SC1090
. "$src/scenarios/$KTEST_NAME.sh"
e2e_log "PASS $KTEST_NAME ($((SECONDS - t0))s in the guest)"
