#!/usr/bin/env bash
# The node suite's fixture (ctest FIXTURES_SETUP / FIXTURES_CLEANUP): a real single Kubernetes
# node (lib.sh), shared by every scenario.
#   fixture.sh up     start it; Ready when this returns (figures: start time and memory)
#   fixture.sh down   stop everything it started and remove what it made, whatever state it is in
# The run directory's location is kept in $NODE_STATE_FILE (in the build tree).
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
: "${NODE_STATE_FILE:?set by ctest}"

down() {
  [ -f "$NODE_STATE_FILE" ] || return 0
  # shellcheck disable=SC1090
  . "$NODE_STATE_FILE"
  node_down
  if [ -d "$NODE_RUN" ]; then
    node_log "$NODE_RUN remains (mounts: $(grep -c " $NODE_RUN" /proc/self/mountinfo || true))"
    return 1
  fi
  rm -f "$NODE_STATE_FILE"
  node_log "node removed"
}

up() {
  down
  NODE_RUN=$(mktemp -d /run/nhk.XXXXXX)
  mkdir -p "$(dirname "$NODE_STATE_FILE")"
  # Recorded before anything is made, so that `down` finds whatever `up` managed to make.
  printf 'NODE_RUN=%s\n' "$NODE_RUN" >"$NODE_STATE_FILE"
  trap 'rc=$?; [ $rc -eq 0 ] || { node_log "setup failed; cleaning up"; tail -n 20 "$NODE_RUN"/log/*.log >&2 || true; down; }; exit $rc' EXIT
  node_up
  local rss=0 name pid
  for name in etcd apiserver controller-manager scheduler containerd kubelet; do
    read -r pid _ <"$NODE_RUN/pids/$name"
    rss=$((rss + $(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")))
  done
  node_figure k8s.node "Ready in $(cat "$NODE_RUN/ready-seconds") s, resident $((rss / 1024)) MiB (etcd, apiserver, controller-manager, scheduler, containerd, kubelet)"
}

case ${1:-} in
up) up ;;
down) down ;;
*) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
