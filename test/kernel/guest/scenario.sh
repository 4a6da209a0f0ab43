#!/usr/bin/env bash
# Inside the guest: one simulated node, then the scenario test/kernel/scenarios/NAME.sh.
#   scenario.sh NAME
# The node, as test/e2e/lib/net.sh wires it (that library, sourced, not copied): the guest's eth0
# sits on a bridge storage0 inside a namespace of its own ("the storage network"), so the guest's
# initial namespace has no route to Ceph; pod namespaces hang off cni0 in the node namespace and,
# like Multus, get net1 on storage0 only when they should reach the storage network.
set -Eeuo pipefail
name=${1:?}
src=$KTEST_SRC
# shellcheck source=../../e2e/lib/common.sh
. "$src/../e2e/lib/common.sh"
# shellcheck source=../../e2e/lib/net.sh
. "$src/../e2e/lib/net.sh"
# shellcheck source=lib.sh
. "$src/guest/lib.sh"

E2E_RUN=/run/ktest
E2E_ID=k
mkdir -p "$E2E_RUN"
KTEST_SCOPE=$E2E_RUN/scope
e2e_scope_new "$KTEST_SCOPE"
trap 'e2e_log "failed at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND"' ERR
trap 'rc=$?; [ $rc -eq 0 ] || ktest_on_failure; exit $rc' EXIT

ktest_node_up
e2e_log "guest node up: storage namespace k-storage, node namespace $E2E_ID-node"
t0=$SECONDS
# shellcheck disable=SC1090
. "$src/scenarios/$name.sh"
e2e_log "PASS $name ($((SECONDS - t0))s in the guest)"
