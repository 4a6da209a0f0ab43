#!/usr/bin/env bash
# Run one node scenario (test/node/scenarios/NAME.sh) against the running node; what it made in
# the cluster (its namespace, its releases) is removed when it ends, pass or fail.
#   scenario.sh NAME
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=scenario-lib.sh
. "$here/scenario-lib.sh"

if [ "$(id -u)" -ne 0 ]; then
  echo "node: needs root (it runs containerd, a kubelet and pods); skipped"
  exit 77
fi
name=${1:?usage: scenario.sh NAME}
[ -f "$here/scenarios/$name.sh" ] || node_die "no scenario $name"
node_load
NODE_SCOPE=$NODE_RUN/scn-$name
rm -rf "$NODE_SCOPE"
mkdir -p "$NODE_SCOPE"
node_scenario_cleanup() {
  # Deleting the namespace deletes every pod of the scenario through the kubelet (CNI DEL);
  # grace 1 s: a holder's preStop guard must not hold the clean-up.
  kc -n "$NODE_NS" delete pods --all --grace-period=1 --wait=false >/dev/null 2>&1 || true
  kc delete namespace "$NODE_NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  node_wait 90 "namespace $NODE_NS to go" node_namespace_gone || node_log "namespace $NODE_NS still there"
  rm -rf "$NODE_SCOPE"
}
node_namespace_gone() { ! kc get namespace "$NODE_NS" >/dev/null 2>&1; }
trap 'node_log "failed at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND"' ERR
trap 'rc=$?; node_scenario_cleanup; exit $rc' EXIT
node_t0=$SECONDS
# shellcheck disable=SC1090
. "$here/scenarios/$name.sh"
node_log "PASS $name ($((SECONDS - node_t0))s)"
