#!/usr/bin/env bash
# Upgrade netns-holder pods in place, without draining a node (design/OPERATIONS.md, "Upgrading
# holders in place"): for each holder pod, patch its container image; the kubelet replaces only
# that container, inside the same pod sandbox, so the network namespace and every kernel session
# in it stay. Then the DaemonSets' templates, so that new nodes get the new image (OnDelete: the
# controller does not recreate the patched pods).
#
#   scripts/upgrade-holders.sh --image IMAGE [-n NAMESPACE] [-l SELECTOR] [--container NAME]
#                              [--timeout SECONDS] [--apply]
#
# Without --apply it only prints what it would do (the default is safe). Pods are done one at a
# time; the first that does not come back ready with the new image stops the run, so at most one
# holder is ever in transition. Right before each patch the running holder's preStop guard is told
# that this is a replacement, not a deletion (netns-exec guard --announce-replacement), so that it
# does not hold the upgrade while Ceph sessions are live. Upgrade the plugin (netns-exec) before
# the holders: a netns-exec reads the record and socket formats of older holders, not of newer ones.
#
# Needs kubectl (and jq) with rights to get/patch pods and daemonsets and to exec into pods.
set -euo pipefail

namespace=ceph-csi
selector=app.kubernetes.io/name=netns-holder
container=holder
image=
timeout=420 # the preStop guard may hold a busy holder for --max-wait (300 s by default)
apply=0

die() { echo "upgrade-holders: $*" >&2; exit 1; }
say() { echo "upgrade-holders: $*"; }
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
  --image) image=${2:?--image needs a value}; shift ;;
  -n | --namespace) namespace=${2:?$1 needs a value}; shift ;;
  -l | --selector) selector=${2:?$1 needs a value}; shift ;;
  --container) container=${2:?--container needs a value}; shift ;;
  --timeout) timeout=${2:?--timeout needs a value}; shift ;;
  --apply) apply=1 ;;
  --dry-run) apply=0 ;;
  -h | --help) usage ;;
  *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
[ -n "$image" ] || die "--image is required (see --help)"
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout '$timeout' is not a number of seconds"
command -v kubectl >/dev/null || die "kubectl is not on PATH"
command -v jq >/dev/null || die "jq is not on PATH"

k() { kubectl -n "$namespace" "$@"; }
run() {
  if [ "$apply" = 1 ]; then
    "$@"
  else
    say "dry run: would run: $*"
  fi
}

# status POD — "IMAGE RESTARTS READY CONTAINER_ID" of the holder container.
status() {
  k get pod "$1" -o json | jq -r --arg c "$container" '
    (.status.containerStatuses // [])[] | select(.name == $c)
    | "\(.image) \(.restartCount) \(.ready) \(.containerID // "-")"'
}

# holder_files POD — "ID DIR" from the pod's netns-holder/cluster-id and netns-holder/dir
# annotations (empty when it has none).
holder_files() {
  k get pod "$1" -o json |
    jq -r '[.metadata.annotations["netns-holder/cluster-id"] // "", .metadata.annotations["netns-holder/dir"] // ""] | join(" ")'
}

# announce POD — tell the holder's next preStop guard (within 2 minutes) that its container is
# being replaced in place. A holder image without --announce-replacement (an older release) just
# gets the old behaviour: its guard holds a busy holder up to its --max-wait, harmlessly.
announce() {
  local pod=$1 id dir
  read -r id dir < <(holder_files "$pod") || true
  if [ -z "${id:-}" ] || [ -z "${dir:-}" ]; then
    say "$pod: no netns-holder/cluster-id or netns-holder/dir annotation; not announcing"
    return 0
  fi
  run kubectl -n "$namespace" exec "$pod" -c "$container" -- /usr/bin/netns-exec guard \
    --announce-replacement 2m --netns /proc/self/ns/net --allow-own-netns \
    --holder-record "$dir/$id.holder.json" ||
    say "$pod: could not announce the replacement (older holder image?); its guard may hold the upgrade up to its --max-wait"
}

# check POD — `netns-holder check` in the new container (what its readiness probe runs): the
# published files name this live holder and the pod's own namespace.
check() {
  local pod=$1 id dir
  read -r id dir < <(holder_files "$pod") || true
  if [ -z "${id:-}" ] || [ -z "${dir:-}" ]; then
    say "$pod: no netns-holder/cluster-id or netns-holder/dir annotation; skipping the check"
    return 0
  fi
  k exec "$pod" -c "$container" -- /usr/bin/netns-holder check --cluster-id "$id" --dir "$dir"
}

mapfile -t pods < <(k get pods -l "$selector" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
[ ${#pods[@]} -gt 0 ] || die "no pods match -l '$selector' in namespace '$namespace'"
say "${#pods[@]} holder pod(s) in $namespace ($selector); new image $image$([ "$apply" = 1 ] || echo '; dry run, add --apply to do it')"

for pod in "${pods[@]}"; do
  read -r old_image restarts ready old_id < <(status "$pod") || die "$pod has no container '$container'"
  node=$(k get pod "$pod" -o jsonpath='{.spec.nodeName}')
  # The spec, not the status: the runtime may report the image under another name (a registry
  # prefix, a digest).
  spec_image=$(k get pod "$pod" -o json | jq -r --arg c "$container" '.spec.containers[] | select(.name == $c) | .image')
  if [ "$spec_image" = "$image" ]; then
    say "$pod (node $node): already runs $image"
    continue
  fi
  [ "$ready" = true ] || die "$pod (node $node) is not ready; fix it before upgrading (kubectl -n $namespace describe pod $pod)"
  say "$pod (node $node): $old_image -> $image (same pod sandbox, same network namespace)"
  announce "$pod"
  run kubectl -n "$namespace" set image "pod/$pod" "$container=$image"
  [ "$apply" = 1 ] || continue
  deadline=$((SECONDS + timeout))
  while :; do
    read -r now_image now_restarts now_ready now_id < <(status "$pod") || true
    if [ "${now_id:-}" != "$old_id" ] && [ "${now_ready:-}" = true ] && [ "${now_restarts:-0}" -gt "$restarts" ]; then
      break
    fi
    [ "$SECONDS" -lt "$deadline" ] ||
      die "$pod: not ready with the new container after ${timeout}s (image ${now_image:-?}); see kubectl -n $namespace describe pod $pod and kubectl -n $namespace logs $pod -c $container --previous"
    sleep 2
  done
  check "$pod" || die "$pod: netns-holder check failed in the new container"
  say "$pod: ready, restart count $restarts -> $now_restarts; kubectl -n $namespace logs $pod -c $container shows the new holder's 'holding net:[...]' line"
done

mapfile -t daemonsets < <(k get daemonsets -l "$selector" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
for ds in "${daemonsets[@]}"; do
  [ -n "$ds" ] || continue
  strategy=$(k get daemonset "$ds" -o jsonpath='{.spec.updateStrategy.type}')
  [ "$strategy" = OnDelete ] ||
    die "daemonset $ds has updateStrategy $strategy, not OnDelete: changing its template would delete holder pods"
  say "daemonset $ds: template image -> $image (OnDelete: running pods are left as they are)"
  run kubectl -n "$namespace" set image "daemonset/$ds" "$container=$image"
done
say "done"
