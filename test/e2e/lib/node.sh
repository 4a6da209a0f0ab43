# shellcheck shell=bash
# The node: holder pods and plugin pods on top of the fixture (clusters, node namespace, kubelet
# directory). Needs common.sh, net.sh, pod.sh, and a loaded run (e2e_run_load).
#
# Paths are the same on the host and in every container (hostPath volumes mounted at their own
# path), so a path printed by one side means the same file to the other:
#   $E2E_KUBELET                        the kubelet directory, a shared mount (Bidirectional)
#   $E2E_HOLDER_DIR                     the holders' hostPath, like /var/lib/kubelet/plugins/rbd.csi.ceph.com
#   $E2E_RUN/<cluster>/                 each Ceph cluster's ceph.conf and admin keyring (read-only in pods)
#   $E2E_RUN/csi/                       ceph-csi config files written by scenarios (read-only in pods)
#
# The pods run the images' file trees as manifests/images/rootfs.sh lays them out (the same script
# the Containerfiles run): the holder pod's rootfs IS the holder image (FROM scratch: the static
# netns-holder and netns-exec for the preStop guard, nothing else); the plugin pod is the host's
# /usr and /etc standing in for the ceph-csi image, plus the plugin image's additions mounted at
# their places (/opt/netns-exec, /usr/local/bin/netns-exec and /usr/local/bin/nsenter -> it).
# Where a tree cannot be made (no netns-exec yet, or a non-static holder in sanitizer builds) the
# binaries are used from the build tree, mounted read-only at its own path.

# e2e_run_load — find the fixture's run directory and cluster facts.
e2e_run_load() {
  [ -n "${E2E_STATE_FILE:-}" ] || e2e_die "E2E_STATE_FILE is not set (run through ctest)"
  [ -f "$E2E_STATE_FILE" ] || e2e_die "no running e2e fixture: $E2E_STATE_FILE is missing (did e2e.setup run?)"
  # shellcheck disable=SC1090
  . "$E2E_STATE_FILE"
  export E2E_RUN E2E_ID
  E2E_KUBELET=$E2E_RUN/kubelet
  E2E_HOLDER_DIR=$E2E_KUBELET/plugins/rbd.csi.ceph.com
}

# e2e_cluster_var CLUSTER VAR — a fact about cluster c1 or c2 (see ceph.sh's env file).
e2e_cluster_var() {
  local line
  line=$(grep "^$2=" "$E2E_RUN/$1/env") || e2e_die "cluster $1 has no $2"
  echo "${line#*=}"
}

# e2e_require_exec [SUBCOMMAND] — fail (not skip) while the executor or a subcommand is missing.
# The subcommand must be listed by `netns-exec --help` (an unknown one may still print help).
e2e_require_exec() {
  [ -n "${E2E_EXEC_BIN:-}" ] && [ -x "$E2E_EXEC_BIN" ] ||
    e2e_die "netns-exec is not built (no target netns-exec in this build); this scenario needs it"
  if [ $# -gt 0 ]; then
    e2e_exec_has "$1" ||
      e2e_die "netns-exec has no '$1' subcommand yet (not in 'netns-exec --help'); this scenario needs it"
  fi
}
# e2e_exec_has SUBCOMMAND — netns-exec lists SUBCOMMAND in its help.
e2e_exec_has() {
  [ -n "${E2E_EXEC_BIN:-}" ] && [ -x "$E2E_EXEC_BIN" ] &&
    "$E2E_EXEC_BIN" --help 2>/dev/null | sed -n '/^Subcommands:/,$p' | grep -E "^ +$1( |\$)" >/dev/null
}

# e2e_images — make the image trees once per run; set where the binaries are inside each pod:
#   E2E_HOLDER_IMAGE  holder rootfs tree
#   E2E_HOLDER_CMD    netns-holder inside the holder pod; E2E_HOLDER_EXEC netns-exec inside it
#   E2E_PLUGIN_EXEC   netns-exec inside the plugin pod; E2E_PLUGIN_MOUNTS its mount options
# The pods run the images as they ship: an image tree that cannot be made fails the scenario with
# rootfs.sh's own words (running the build tree's binaries instead would test something else).
e2e_images() {
  local dir=$E2E_RUN/images rootfs
  rootfs=$(cd "$E2E_LIB/../../../manifests/images" && pwd)/rootfs.sh
  [ -x "$rootfs" ] || e2e_die "no image tree script at $rootfs"
  e2e_require_holder
  e2e_require_exec
  mkdir -p "$dir"
  (
    flock 9
    [ -e "$dir/done" ] && exit 0
    rm -rf "$dir/holder" "$dir/plugin"
    "$rootfs" holder "$dir/holder" "$E2E_HOLDER_BIN" "$E2E_EXEC_BIN" >"$dir/holder.log" 2>&1 ||
      { echo "holder"; exit 1; }
    "$rootfs" plugin "$dir/plugin" "$E2E_EXEC_BIN" >"$dir/plugin.log" 2>&1 || { echo "plugin"; exit 1; }
    : >"$dir/done"
  ) 9>>"$dir/lock" >"$dir/failed" ||
    e2e_die "rootfs.sh could not make the $(cat "$dir/failed") image tree (manifests/images/rootfs.sh; log $dir/$(cat "$dir/failed").log): $(tail -n 5 "$dir/$(cat "$dir/failed").log")"
  E2E_HOLDER_IMAGE=$dir/holder
  E2E_HOLDER_CMD=/usr/bin/netns-holder
  E2E_HOLDER_EXEC=/usr/bin/netns-exec
  E2E_PLUGIN_EXEC=/usr/local/bin/netns-exec
  E2E_PLUGIN_MOUNTS=(--ro "$dir/plugin/opt/netns-exec:/opt/netns-exec"
    --ro "$dir/plugin/usr/local/bin:/usr/local/bin")
}

e2e_require_holder() {
  [ -n "${E2E_HOLDER_BIN:-}" ] && [ -x "$E2E_HOLDER_BIN" ] ||
    e2e_die "netns-holder is not built (no target netns-holder in this build); this scenario needs it"
}

# e2e_csi_config FILE CLUSTER_ID CLUSTER NETNS_FILE_PATH [CLUSTER_ID CLUSTER PATH]... — ceph-csi's
# config.json; CLUSTER (c1, c2) says which Ceph cluster's monitors the entry lists.
e2e_csi_config() {
  local file=$1 json='[]'
  shift
  mkdir -p "$(dirname "$file")"
  while [ $# -ge 3 ]; do
    local cid=$1 cluster=$2 path=$3
    json=$(jq -c --arg id "$cid" --arg mon "$(e2e_cluster_var "$cluster" E2E_CEPH_MON)" --arg p "$path" \
      '. + [{clusterID: $id, monitors: [$mon], rbd: {netNamespaceFilePath: $p}, cephFS: {netNamespaceFilePath: $p}}]' <<<"$json")
    shift 3
  done
  jq . <<<"$json" >"$file.tmp" && mv "$file.tmp" "$file"
}

# e2e_holder_start SCOPE POD CLUSTER_ID CLUSTER [--socket] — the holder DaemonSet's pod for one Ceph
# cluster: a pod namespace with the Multus storage interface, hostPID (or its own pid namespace with
# --socket), the hostPath holder directory. Waits until the holder has published.
# Sets E2E_HOLDER_NS (pod namespace name) and E2E_HOLDER_ADDR (its storage address).
e2e_holder_start() {
  local scope=$1 pod=$2 cid=$3 cluster=$4 mode=${5:-}
  e2e_require_holder
  e2e_images
  local ns addr
  ns=$(e2e_podnet_create "$scope" "h-$cid")
  addr=$(e2e_podnet_attach_storage "$ns" "$E2E_RUN/$cluster/env")
  local args=("$E2E_HOLDER_CMD" --cluster-id "$cid" --dir "$E2E_HOLDER_DIR") opts=() want=$E2E_HOLDER_DIR/$cid.net.ns
  # As the holder's manifest runs it: no capabilities, read-only root; socket mode allows uid 0.
  opts+=(--unprivileged)
  opts+=(--image "$E2E_HOLDER_IMAGE")
  if [ "$mode" = --socket ]; then
    args+=(--socket --allow-uid 0)
    opts+=(--own-pid)
    want=$E2E_HOLDER_DIR/$cid.net.sock
  fi
  e2e_pod_run "$scope" "$pod" "/run/netns/$ns" "${opts[@]}" \
    --rw "$E2E_HOLDER_DIR:$E2E_HOLDER_DIR" -- "${args[@]}"
  e2e_wait_until 10 "holder $cid to publish $want" test -e "$want" ||
    e2e_die "holder $cid did not publish $want; its log: $(tail -n 5 "$E2E_RUN/pods/$pod/log")"
  E2E_HOLDER_NS=$ns
  E2E_HOLDER_ADDR=$addr
}

# e2e_holder_stop SCOPE POD [SIGNAL] — delete the holder pod (TERM: graceful; KILL: crash) and
# its namespace.
e2e_holder_stop() {
  local scope=$1 pod=$2 sig=${3:-TERM} ns
  ns=$(basename "$(jq -r '.linux.namespaces[] | select(.type == "network") | .path' "$E2E_RUN/pods/$pod/config.json")")
  e2e_pod_delete "$scope" "$pod" "$sig"
  e2e_podnet_delete "$scope" "$ns"
}

# e2e_plugin_start SCOPE POD [--own-pid] [--no-storage] [--ro SRC:DST] [--env K=V] — the CSI node
# plugin's pod as the field runs it: pod networking plus a Multus-like interface on each storage
# network of the node (net1 for c1, net2 for c2: ceph-csi opens its own RADOS connection before
# any map), hostPID unless --own-pid, the kubelet directory with Bidirectional propagation, the
# plugin image's executor. --no-storage leaves it without any route to storage (the routing alone,
# scenario a). Its init just sleeps; scenarios run the plugin's commands in it with e2e_pod_exec.
# Sets E2E_PLUGIN_NS and E2E_PLUGIN_ADDR (its address on c1's storage network; empty with
# --no-storage).
e2e_plugin_start() {
  local scope=$1 pod=$2
  shift 2
  local opts=() storage=yes
  while [ $# -gt 0 ]; do
    case $1 in
    --own-pid) opts+=(--own-pid) ;;
    --no-storage) storage=no ;;
    --ro | --env) opts+=("$1" "$2"); shift ;;
    *) e2e_die "e2e_plugin_start: unknown option $1" ;;
    esac
    shift
  done
  e2e_images
  local ns c n=0 addr ro=()
  ns=$(e2e_podnet_create "$scope" "plugin")
  E2E_PLUGIN_ADDR=
  for c in c1 c2; do
    [ -d "$E2E_RUN/$c" ] || continue
    ro+=(--ro "$E2E_RUN/$c:$E2E_RUN/$c")
    [ "$storage" = yes ] || continue
    n=$((n + 1))
    addr=$(e2e_podnet_attach_storage "$ns" "$E2E_RUN/$c/env" "net$n")
    if [ "$c" = c1 ]; then E2E_PLUGIN_ADDR=$addr; fi
  done
  mkdir -p "$E2E_RUN/csi"
  e2e_pod_run "$scope" "$pod" "/run/netns/$ns" "${opts[@]}" "${ro[@]}" "${E2E_PLUGIN_MOUNTS[@]}" \
    --ro "$E2E_RUN/csi:$E2E_RUN/csi" --bidir "$E2E_KUBELET" \
    -- sleep infinity
  E2E_PLUGIN_NS=$ns
}

# e2e_plugin_stop SCOPE POD — delete the plugin pod and its sandbox namespace (a pod restart
# or an upgrade: the kubelet makes a new sandbox).
e2e_plugin_stop() {
  local scope=$1 pod=$2 ns
  ns=$(basename "$(jq -r '.linux.namespaces[] | select(.type == "network") | .path' "$E2E_RUN/pods/$pod/config.json")")
  e2e_pod_delete "$scope" "$pod" KILL
  e2e_podnet_delete "$scope" "$ns"
}

# The inode of a network namespace file (/run/netns/NAME, /proc/PID/ns/net, a holder link).
e2e_ns_id() { stat -L -c %i "$1"; }

# e2e_holder_next_image — a second holder image tree, made once per run from netns-holder-next
# (the same holder built with another version string): what a new holder image release puts on
# the node. Fails (not skips) when it cannot be made. Sets E2E_HOLDER_NEXT_IMAGE.
e2e_holder_next_image() {
  [ -n "${E2E_HOLDER_NEXT_BIN:-}" ] && [ -x "$E2E_HOLDER_NEXT_BIN" ] ||
    e2e_die "netns-holder-next is not built (target netns-holder-next); this scenario needs it"
  e2e_images
  local dir=$E2E_RUN/images rootfs
  rootfs=$(cd "$E2E_LIB/../../../manifests/images" && pwd)/rootfs.sh
  (
    flock 9
    [ -d "$dir/holder-next" ] && exit 0
    "$rootfs" holder "$dir/holder-next" "$E2E_HOLDER_NEXT_BIN" "$E2E_EXEC_BIN" >"$dir/holder-next.log" 2>&1 ||
      { rm -rf "$dir/holder-next"; exit 1; }
  ) 9>>"$dir/lock" || e2e_die "rootfs.sh holder failed for netns-holder-next: $(tail -n 3 "$dir/holder-next.log")"
  E2E_HOLDER_NEXT_IMAGE=$dir/holder-next
}

# e2e_holder_replace SCOPE POD NEW_POD IMAGE_TREE — what the kubelet does when a holder pod's
# container image is patched: the holder container is stopped (SIGTERM; a scenario runs the
# preStop hook before calling this) and a container from IMAGE_TREE, with the same command,
# mounts and security settings, starts in the SAME pod network namespace: the sandbox stays.
# NEW_POD is the new container's id (a restarted container is a new container; the old one's log
# stays in $E2E_RUN/pods/POD/log, like `kubectl logs --previous`). Waits until the new holder has
# published its record.
e2e_holder_replace() {
  local scope=$1 pod=$2 new=$3 image=$4
  local cfg=$E2E_RUN/pods/$pod/config.json netns cid='' i
  local args=() opts=(--unprivileged --image "$image" --rw "$E2E_HOLDER_DIR:$E2E_HOLDER_DIR")
  netns=$(jq -r '.linux.namespaces[] | select(.type == "network") | .path' "$cfg")
  mapfile -t args < <(jq -r '.process.args[]' "$cfg")
  for i in "${!args[@]}"; do
    [ "${args[$i]}" = --cluster-id ] && cid=${args[$((i + 1))]}
  done
  [ -n "$cid" ] || e2e_die "e2e_holder_replace: $pod is not a holder (no --cluster-id in its command)"
  jq -e '.linux.namespaces[] | select(.type == "pid")' "$cfg" >/dev/null && opts+=(--own-pid)
  e2e_pod_delete "$scope" "$pod" TERM
  e2e_pod_run "$scope" "$new" "$netns" "${opts[@]}" -- "${args[@]}"
  local start
  start=$(e2e_starttime "$(e2e_pod_pid "$new")") || e2e_die "holder $new exited at once"
  # The record names the new holder once its start time is the new container's (the pid may be
  # 1 in its own pid namespace, the start time is the same from everywhere).
  e2e_wait_until 10 "holder $new to publish its record" \
    sh -c '[ "$(jq -r .pid_start_time "$1")" = "$2" ]' _ "$E2E_HOLDER_DIR/$cid.holder.json" "$start" ||
    e2e_die "holder $new did not publish; its log: $(tail -n 5 "$E2E_RUN/pods/$new/log")"
}
