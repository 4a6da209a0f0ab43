# shellcheck shell=bash
# Sourced by ./post-renderer and ./render-patch: their flags as helm values.
# String values go through --set-file, so commas, quotes and '=' (a Multus JSON
# list) arrive exactly as given.
helm=${NETNS_HELM:-${HELM_BIN:-helm}}
if ! command -v "$helm" >/dev/null 2>&1; then
  echo "$(basename "$0"): helm not found (looked for \$NETNS_HELM, \$HELM_BIN, helm on PATH)" >&2
  exit 127
fi

# shellcheck disable=SC2034 # patch_driver and helm_args are read by the caller
plugin_args() {
  local work=$1 n=0 arg key value
  shift
  helm_args=()
  patch_driver=  # read by render-patch
  set_string() {
    n=$((n + 1))
    printf '%s' "$2" >"$work/value.$n"
    helm_args+=(--set-file "$1=$work/value.$n")
  }
  for arg in "$@"; do
    case $arg in
      --host-network) helm_args+=(--set hostNetwork=true); continue ;;
      --pod-network-reaches-ceph) helm_args+=(--set podNetworkReachesCeph=true); continue ;;
      --*=*) key=${arg%%=*} value=${arg#*=} ;;
      *)
        echo "$(basename "$0"): unknown argument '$arg': flags are --name=value (e.g. --mode=socket)" >&2
        exit 2 ;;
    esac
    case $key in
      --mode) set_string mode "$value" ;;
      --plugin-image) set_string pluginImage "$value" ;;
      --multus) set_string multus "$value" ;;
      --livenessprobe-image) set_string livenessprobe.image "$value" ;;
      --liveness-port)
        if ! [[ $value =~ ^[0-9]{1,5}$ ]]; then
          echo "$(basename "$0"): --liveness-port '$value' is not a port number" >&2
          exit 2
        fi
        helm_args+=(--set "livenessprobe.port=$((10#$value))") ;;
      --driver) patch_driver=$value; set_string patch.driver "$value" ;;
      --kind) set_string patch.kind "$value" ;;
      --namespace) set_string patch.namespace "$value" ;;
      --daemonset) set_string patch.daemonset "$value" ;;
      --container) set_string patch.container "$value" ;;
      *)
        echo "$(basename "$0"): unknown flag '$key' (see the comment at the top of $0)" >&2
        exit 2 ;;
    esac
  done
}
