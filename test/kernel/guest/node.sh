#!/usr/bin/env bash
# Inside the guest, once per VM: the simulated node's networks, as test/e2e/lib/net.sh wires them
# (that library, sourced, not copied). The guest's eth0 sits on a bridge storage0 inside a
# namespace of its own ("the storage network"), so the guest's initial namespace has no route to
# Ceph; pod namespaces hang off cni0 in the node namespace and, like Multus, get net1 on storage0
# only when they should reach the storage network.
set -Eeuo pipefail
src=$KTEST_SRC
# shellcheck source=../../e2e/lib/common.sh
. "$src/../e2e/lib/common.sh"
# shellcheck source=../../e2e/lib/net.sh
. "$src/../e2e/lib/net.sh"
KTEST_NAME=node KTEST_W=/run/ktest/node
# shellcheck source=lib.sh
. "$src/guest/lib.sh"
E2E_RUN=/run/ktest
E2E_ID=k
mkdir -p "$E2E_RUN" "$KTEST_W"
KTEST_NODE_SCOPE=$E2E_RUN/node-scope
e2e_scope_new "$KTEST_NODE_SCOPE"
ktest_node_up
# The controls leave stalled tasks behind on purpose; the hung-task detector's reports of them
# (120 s later, with stack traces naming functions such as filemap_fdatawait_range_keep_errors)
# would land in a later control's kernel-message check (ktest_control) as errors. Off.
if [ -e /proc/sys/kernel/hung_task_timeout_secs ]; then echo 0 >/proc/sys/kernel/hung_task_timeout_secs; fi
e2e_log "guest node up: storage namespace k-storage, node namespace $E2E_ID-node"
