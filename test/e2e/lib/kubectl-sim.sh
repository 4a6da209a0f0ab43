#!/usr/bin/env bash
# kubectl for the simulated node: the calls scripts/upgrade-holders.sh makes, answered from the
# scenario's runc pods the way the API server and the kubelet would. Installed as `kubectl` on
# PATH by a scenario (see e2e_kube_sim); it acts only on the pods registered in its state
# directory, never on anything else on the machine.
#
# State: $E2E_KUBE/pods/NAME.json   {container, image, restarts, annotations, node}
#        $E2E_KUBE/images/IMAGE     the image tree that IMAGE stands for (file content: a path)
#        $E2E_KUBE/daemonsets/NAME.json {image, strategy}
# Needs E2E_STATE_FILE, E2E_SCOPE and E2E_KUBE in the environment (exported by the scenario).
#
# Supported (anything else exits 2, naming the call, so a new call in the script shows up here):
#   -n NS get pods -l SEL -o jsonpath=...          pod names, one a line
#   -n NS get pod NAME -o json                     spec.containers, status.containerStatuses,
#                                                  metadata.annotations, spec.nodeName
#   -n NS get pod NAME -o jsonpath={.spec.nodeName}
#   -n NS exec NAME -c holder -- CMD...            CMD in the pod's current container
#   -n NS set image pod/NAME holder=IMAGE          the kubelet's in-place replacement: the preStop
#                                                  hook, then a container from IMAGE's tree in the
#                                                  same sandbox (e2e_holder_replace)
#   -n NS get daemonsets -l SEL -o jsonpath=...    daemonset names
#   -n NS get daemonset NAME -o jsonpath={.spec.updateStrategy.type}
#   -n NS set image daemonset/NAME holder=IMAGE    the template's image
set -euo pipefail
_sim_lib=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=all.sh
. "$_sim_lib/all.sh"
e2e_run_load
: "${E2E_SCOPE:?}" "${E2E_KUBE:?}"

unsupported() { echo "kubectl-sim: unsupported call: kubectl $*" >&2; exit 2; }
[ "${1:-}" = -n ] && shift 2
pod_file() { [ -f "$E2E_KUBE/pods/$1.json" ] || { echo "Error from server (NotFound): pods \"$1\" not found" >&2; exit 1; }; echo "$E2E_KUBE/pods/$1.json"; }
set_field() { local f=$1; shift; jq "$@" "$f" >"$f.tmp" && mv "$f.tmp" "$f"; }

case "${1:-} ${2:-}" in
"get pods")
  for f in "$E2E_KUBE"/pods/*.json; do if [ -e "$f" ]; then basename "$f" .json; fi; done ;;
"get pod")
  f=$(pod_file "$3")
  case "${5:-}" in
  json)
    # ready: the container's init is alive (the holder answers for itself with `check`).
    ready=false
    e2e_tracked_pid "$E2E_SCOPE" "pod.$(jq -r .container "$f")" >/dev/null && ready=true
    jq --argjson ready "$ready" '{
      metadata: {name: .name, annotations: .annotations},
      spec: {nodeName: .node, containers: [{name: "holder", image: .image}]},
      status: {containerStatuses: [{name: "holder", image: .image, restartCount: .restarts,
        ready: $ready, containerID: ("runc://" + .container)}]}}' "$f" ;;
  'jsonpath={.spec.nodeName}') jq -j .node "$f" ;;
  *) unsupported "$@" ;;
  esac ;;
"exec "*)
  f=$(pod_file "$2")
  [ "$3 $4 $5" = "-c holder --" ] || unsupported "$@"
  e2e_pod_exec "$(jq -r .container "$f")" "${@:6}" ;;
"set image")
  what=$3 spec=$4
  [ "${spec%%=*}" = holder ] || unsupported "$@"
  image=${spec#holder=}
  case $what in
  pod/*)
    f=$(pod_file "${what#pod/}")
    [ -f "$E2E_KUBE/images/$image" ] || { echo "kubectl-sim: no image tree for $image (ErrImagePull)" >&2; exit 1; }
    old=$(jq -r .container "$f")
    new=$old-r$(($(jq -r .restarts "$f") + 1))
    # The kubelet: the preStop hook in the old container (as the chart has it), then SIGTERM, then
    # a container from the new image in the same sandbox.
    e2e_pod_exec "$old" /usr/bin/netns-exec guard --wait-idle --netns /proc/self/ns/net --allow-own-netns \
      --max-wait 30s || echo "kubectl-sim: preStop hook of $old exited $?" >&2
    e2e_holder_replace "$E2E_SCOPE" "$old" "$new" "$(cat "$E2E_KUBE/images/$image")" >&2
    set_field "$f" --arg c "$new" --arg i "$image" '.container = $c | .image = $i | .restarts += 1'
    echo "pod/${what#pod/} image updated" ;;
  daemonset/*)
    f=$E2E_KUBE/daemonsets/${what#daemonset/}.json
    [ -f "$f" ] || { echo "Error from server (NotFound): daemonsets \"${what#daemonset/}\" not found" >&2; exit 1; }
    set_field "$f" --arg i "$image" '.image = $i'
    echo "daemonset.apps/${what#daemonset/} image updated" ;;
  *) unsupported "$@" ;;
  esac ;;
"get daemonsets")
  for f in "$E2E_KUBE"/daemonsets/*.json; do if [ -e "$f" ]; then basename "$f" .json; fi; done ;;
"get daemonset")
  f=$E2E_KUBE/daemonsets/$3.json
  [ -f "$f" ] || unsupported "$@"
  [ "${5:-}" = 'jsonpath={.spec.updateStrategy.type}' ] || unsupported "$@"
  jq -j .strategy "$f" ;;
*) unsupported "$@" ;;
esac
