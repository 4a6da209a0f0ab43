#!/usr/bin/env bash
# The e2e fixture: one node, two real Ceph clusters, shared by every scenario (ctest
# FIXTURES_SETUP / FIXTURES_CLEANUP).
#   fixture.sh up     start: node namespace, kubelet directory, cluster c1 (mon, OSD, MDS, CephFS)
#                     on storage network 198.18.0.0/20, cluster c2 (mon, OSD) on 198.18.16.0/20
#   fixture.sh down   stop everything any scenario or the fixture left behind, by recorded PID/name
# The run directory's location is kept in $E2E_STATE_FILE (in the build tree).
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/all.sh
. "$here/lib/all.sh"

if [ "$(id -u)" -ne 0 ]; then
  echo "e2e: needs root (it creates network namespaces, runc containers and a Ceph cluster); skipped"
  exit 77
fi
: "${E2E_STATE_FILE:?set by ctest}"

down() {
  [ -f "$E2E_STATE_FILE" ] || return 0
  local E2E_RUN E2E_ID
  # shellcheck disable=SC1090
  . "$E2E_STATE_FILE"
  export E2E_RUN E2E_ID
  local scope
  # Scenarios first (their pods sit on the fixture's networks), the fixture last.
  for scope in "$E2E_RUN"/scn-* "$E2E_RUN"/demo "$E2E_RUN"/fixture; do
    [ -d "$scope/pids" ] || continue
    e2e_scope_cleanup "$scope"
  done
  if grep -q " ${E2E_RUN}[/ ]" /proc/self/mountinfo; then
    e2e_log "mounts remain under $E2E_RUN; leaving it in place:"
    grep " ${E2E_RUN}[/ ]" /proc/self/mountinfo >&2
    return 1
  fi
  rm -rf "$E2E_RUN"
  rm -f "$E2E_STATE_FILE"
  e2e_log "fixture removed"
}

up() {
  down # a previous run that died without its cleanup
  E2E_ID=e2e$$
  E2E_RUN=$(mktemp -d /tmp/nse2e.XXXXXX)
  export E2E_RUN E2E_ID
  mkdir -p "$(dirname "$E2E_STATE_FILE")"
  # Record the run before creating anything, so that `down` finds whatever `up` managed to make.
  printf 'E2E_RUN=%s\nE2E_ID=%s\n' "$E2E_RUN" "$E2E_ID" >"$E2E_STATE_FILE"
  trap 'rc=$?; [ $rc -eq 0 ] || { e2e_log "setup failed; cleaning up"; down; }; exit $rc' EXIT
  local scope=$E2E_RUN/fixture t0=$SECONDS
  e2e_scope_new "$scope"
  e2e_run_load

  e2e_section "node: pod network (bridge cni0 in $E2E_ID-node)"
  e2e_node_create "$scope" >/dev/null
  # The kubelet directory is a shared mount so that a plugin's Bidirectional mounts reach the host.
  mkdir -p "$E2E_HOLDER_DIR"
  mount --bind "$E2E_KUBELET" "$E2E_KUBELET"
  e2e_track_mount "$scope" "$E2E_KUBELET"
  mount --make-shared "$E2E_KUBELET"

  e2e_section "Ceph cluster c1 (mon, OSD, MDS + CephFS) in $E2E_ID-st1, 198.18.0.1/20"
  e2e_ceph_create "$scope" "$E2E_RUN/c1" "$E2E_ID-st1" 198.18.0.1/20 mds
  e2e_ceph "$E2E_RUN/c1" "$E2E_ID-st1" -s
  e2e_section "Ceph cluster c2 (mon, OSD) in $E2E_ID-st2, 198.18.16.1/20"
  e2e_ceph_create "$scope" "$E2E_RUN/c2" "$E2E_ID-st2" 198.18.16.1/20
  e2e_ceph "$E2E_RUN/c2" "$E2E_ID-st2" health
  e2e_log "fixture up in $((SECONDS - t0))s; run directory $E2E_RUN"
}

case ${1:-} in
up) up ;;
down) down ;;
*) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
