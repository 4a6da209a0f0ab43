# shellcheck shell=bash
# Guest-side helpers of the scenarios that drive the real ceph-csi node plugin (cephcsi, built and
# cached by scripts/setup.d/cephcsi.sh, unmodified) over its CSI socket with the kubelet's calls
# (csi-kubelet, test/csi/kubelet). Sourced by those scenarios after guest/lib.sh.
#
# The plugin pod is a pod namespace with net1 on the storage network, as a Multus attachment gives
# it in the field: ceph-csi opens its own RADOS connections in-process (CreateVolume, and
# NodeStageVolume before any `rbd map`), so a plugin without a route to the monitors cannot stage
# anything. Only the kernel client's sessions have to live in the holder's namespace.
# One cephcsi process serves the node and the controller calls, as a single-node cluster's plugin
# and provisioner would; a restart restarts both.

# The plugin pod the CSI calls go to (ktest_cephcsi_pod): "plugin" unless a scenario runs two.
KTEST_CSI_POD=plugin
KTEST_CSI_RUN=$KTEST_W/csi/plugin
KTEST_CSI_SOCK=$KTEST_CSI_RUN/csi.sock
KTEST_CSI_SECRETS=$KTEST_W/csi/secrets.json
KTEST_CSI_VOL=$KTEST_W/csi/volume.json
KTEST_CSI_NODE=ktest
# What a kubelet uses: the staging path under plugins/kubernetes.io/csi/<driver>/<hash>/globalmount,
# the publish path under the pod's volumes directory.
KTEST_CSI_STAGING_ROOT=/var/lib/kubelet/plugins/kubernetes.io/csi
# ceph-csi 3.12 reads its cluster config from this compiled-in path only (no flag).
KTEST_CSI_CONFIG_PATH=/etc/ceph-csi-config/config.json

# ktest_cephcsi_setup TYPE — the plugin's files for TYPE (rbd or cephfs): its cluster config at
# the compiled-in path (a copy of the scenario's config.json: ktest_csi_config), the secret the
# provisioner and the kubelet pass (userID/userKey, adminID/adminKey), and the paths of the
# volume. Everything it writes outside the scenario's directory is removed at its end, ceph-csi's
# own /etc/ceph files included (it writes them when they are missing).
# Sets KTEST_CSI_TYPE, KTEST_CSI_DRIVER, KTEST_CSI_STAGING and KTEST_CSI_TARGET.
ktest_cephcsi_setup() {
  KTEST_CSI_TYPE=$1
  case $1 in
    rbd) KTEST_CSI_DRIVER=rbd.csi.ceph.com ;;
    cephfs) KTEST_CSI_DRIVER=cephfs.csi.ceph.com ;;
    *) e2e_die "ktest_cephcsi_setup: unknown type $1" ;;
  esac
  [ -x "${KTEST_CEPHCSI_BIN:-}" ] || e2e_die "no cephcsi at '${KTEST_CEPHCSI_BIN:-}': run sudo ./dev setup (scripts/setup.d/cephcsi.sh)"
  [ -x "${KTEST_CSI_KUBELET_BIN:-}" ] || e2e_die "no csi-kubelet at '${KTEST_CSI_KUBELET_BIN:-}': the build makes it (test/csi/build_kubelet.sh)"
  [ -f "$KTEST_CONFIG" ] || e2e_die "ktest_cephcsi_setup: no config.json yet (ktest_csi_config first)"
  [ ! -e "$KTEST_CSI_CONFIG_PATH" ] || e2e_die "$KTEST_CSI_CONFIG_PATH exists already (a scenario before this one left it)"
  local f
  for f in /etc/ceph/ceph.conf /etc/ceph/keyring; do
    [ -e "$f" ] || ktest_at_cleanup rm -f "$f"
  done
  ktest_at_cleanup rm -rf "$(dirname "$KTEST_CSI_CONFIG_PATH")"
  install -d -m 0755 "$(dirname "$KTEST_CSI_CONFIG_PATH")" "$KTEST_CSI_RUN"
  # Where ceph-csi writes the keys it passes as --keyfile (the plugin pod's emptyDir keys-tmp-dir).
  [ -e /tmp/csi ] || ktest_at_cleanup rm -rf /tmp/csi
  install -d -m 0700 /tmp/csi /tmp/csi/keys
  install -m 0644 "$KTEST_CONFIG" "$KTEST_CSI_CONFIG_PATH"
  local key
  key=$(cat "$KTEST_KEYFILE")
  (umask 077 && jq -n --arg k "$key" '{userID: "admin", userKey: $k, adminID: "admin", adminKey: $k}' >"$KTEST_CSI_SECRETS")
  KTEST_CSI_STAGING=$KTEST_CSI_STAGING_ROOT/$KTEST_CSI_DRIVER/$KTEST_TAG/globalmount
  KTEST_CSI_TARGET=/var/lib/kubelet/pods/pod-$KTEST_TAG/volumes/kubernetes.io~csi/pvc-$KTEST_TAG/mount
}

# ktest_cephcsi_pod NAME — the calls that follow go to the cephcsi of plugin pod NAME
# (ktest_plugin_start NAME): its socket directory and socket, and its namespace once it has one.
ktest_cephcsi_pod() {
  KTEST_CSI_POD=$1
  KTEST_CSI_RUN=$KTEST_W/csi/$1
  KTEST_CSI_SOCK=$KTEST_CSI_RUN/csi.sock
  install -d -m 0755 "$KTEST_CSI_RUN"
  [ ! -f "$KTEST_W/plugin-$1.ns" ] || KTEST_PLUGIN_NS=$(cat "$KTEST_W/plugin-$1.ns")
}

# ktest_cephcsi_start — cephcsi in the plugin's pod namespace (KTEST_PLUGIN_NS), with the plugin
# container's PATH and environment (ktest_plugin_call: the shims first once installed), tracked in
# the pod's scope so a restart kills it; returns once it answers NodeGetInfo (bounded). Appends
# its start time (ms, to the first answer) to KTEST_CSI_STARTS.
KTEST_CSI_STARTS=()
ktest_cephcsi_start() {
  local t0 ms
  t0=$(date +%s%N)
  ktest_plugin_env
  # A log per start (ktest_on_failure shows each one's end).
  KTEST_CSI_LOG=$KTEST_W/cephcsi.$((${#KTEST_CSI_STARTS[@]} + 1)).log
  e2e_spawn "$KTEST_W/plugin-$KTEST_CSI_POD" cephcsi "$KTEST_PLUGIN_NS" "$KTEST_CSI_LOG" \
    env "${KTEST_PLUGIN_ENV[@]}" "$KTEST_CEPHCSI_BIN" -type="$KTEST_CSI_TYPE" \
    -nodeserver=true -controllerserver=true -endpoint="unix://$KTEST_CSI_SOCK" \
    -drivername="$KTEST_CSI_DRIVER" -nodeid="$KTEST_CSI_NODE" -pluginpath=/var/lib/kubelet/plugins \
    -stagingpath="$KTEST_CSI_STAGING_ROOT/" -csi-addons-endpoint="unix://$KTEST_CSI_RUN/csi-addons.sock" -v=4
  ktest_csi info -wait 90s >/dev/null ||
    e2e_die "cephcsi did not answer NodeGetInfo within 90 s: $(tail -n 20 "$KTEST_CSI_LOG")"
  ms=$((($(date +%s%N) - t0) / 1000000))
  KTEST_CSI_STARTS+=("$ms")
  e2e_log "cephcsi -type=$KTEST_CSI_TYPE answered NodeGetInfo ${ms} ms after its start (pod namespace $KTEST_PLUGIN_NS)"
}

# ktest_csi CALL ARGS... — one CSI call as the kubelet (or the provisioner) makes it, on the
# plugin's socket, from the node's namespace (the socket is a file: no network involved). Prints
# csi-kubelet's line ("CALL ok ms=N ...").
ktest_csi() {
  local call=$1
  shift
  "$KTEST_CSI_KUBELET_BIN" -endpoint "$KTEST_CSI_SOCK" "$call" "$@"
}

# ktest_cephcsi_restart — the plugin pod restarted as the kubelet does it (ktest_plugin_restart:
# its processes killed, CNI DEL, the namespace deleted, a new one with a new net1 on storage), then
# cephcsi started in it and its NodeGetInfo answered.
ktest_cephcsi_restart() {
  ktest_plugin_restart "$KTEST_CSI_POD" storage
  ktest_cephcsi_start
}

# ktest_cephcsi_create — the provisioner's CreateVolume with the StorageClass parameters of
# KTEST_CSI_TYPE (ceph-csi answers a repeated request name with the same volume). Sets
# KTEST_CSI_IMAGE for rbd.
ktest_cephcsi_create() {
  case $KTEST_CSI_TYPE in
    rbd)
      ktest_csi create -name "pvc-$KTEST_TAG" -size-mib 64 -fstype ext4 -access single-node-writer \
        -param "clusterID=$KTEST_CID" -param pool=rbd -param imageFeatures=layering \
        -secrets "$KTEST_CSI_SECRETS" -volume "$KTEST_CSI_VOL"
      KTEST_CSI_IMAGE=$(jq -er '.volume_context.imageName' "$KTEST_CSI_VOL") ||
        e2e_die "CreateVolume's volume context names no image: $(cat "$KTEST_CSI_VOL")"
      # A mapping left by a failed run is undone, found by the image's name (as ktest_krbd_*).
      ktest_at_cleanup ktest_unmap_image_force "$KTEST_CSI_IMAGE"
      ;;
    cephfs)
      ktest_csi create -name "pvc-$KTEST_TAG" -size-mib 64 -fstype "" -access multi-node-multi-writer \
        -param "clusterID=$KTEST_CID" -param "fsName=$KTEST_CEPH_FS" \
        -secrets "$KTEST_CSI_SECRETS" -volume "$KTEST_CSI_VOL"
      ;;
  esac
}

# ktest_cephcsi_volume_up — the kubelet's sequence up to a running pod: CreateVolume (the
# provisioner's, with the StorageClass parameters of KTEST_CSI_TYPE), NodeStageVolume,
# NodePublishVolume. Sets KTEST_CSI_IMAGE (rbd: the image ceph-csi made) and KTEST_CSI_STAGE_MS.
ktest_cephcsi_volume_up() {
  local out
  ktest_cephcsi_create
  out=$(ktest_csi stage -volume "$KTEST_CSI_VOL" -staging "$KTEST_CSI_STAGING" -secrets "$KTEST_CSI_SECRETS") ||
    e2e_die "NodeStageVolume failed: $out; cephcsi: $(tail -n 20 "$KTEST_CSI_LOG")"
  echo "$out"
  KTEST_CSI_STAGE_MS=$(sed -n 's/^stage ok ms=\([0-9]*\).*/\1/p' <<<"$out")
  ktest_csi publish -volume "$KTEST_CSI_VOL" -staging "$KTEST_CSI_STAGING" -target "$KTEST_CSI_TARGET" \
    -secrets "$KTEST_CSI_SECRETS" ||
    e2e_die "NodePublishVolume failed; cephcsi: $(tail -n 20 "$KTEST_CSI_LOG")"
  grep -F " $KTEST_CSI_TARGET " /proc/mounts >/dev/null || e2e_die "NodePublishVolume left nothing mounted at $KTEST_CSI_TARGET"
}

# How many times a holder run restarts the real plugin: 10, as the other holder runs. Every restart
# is the same full one (killed, CNI DEL, a new namespace, cephcsi started, NodeGetInfo answered);
# under TCG a cycle takes 9-23 s on two shared cores at load ~6-8 (45-55 s at load ~13), most of
# it cephcsi's start. A smaller number (KTEST_CEPHCSI_RESTARTS in the guest's environment) is for
# trying a change, never for the suite.
KTEST_CEPHCSI_RESTARTS=${KTEST_CEPHCSI_RESTARTS:-10}

# ktest_cephcsi_holder_restarts NAME RESTARTS — the ceph-csi holder runs' core: while the workload
# NAME (started) writes to the published path, the plugin restarts RESTARTS times
# (ktest_cephcsi_restart), each followed by 3 more writes (bounded); then the workload is stopped
# and must show 0 I/O errors, no write over KTEST_HOLDER_STALL_MS, its data read back as written.
# Sets KTEST_W_* (ktest_workload_stop) and KTEST_RESTARTS.
ktest_cephcsi_holder_restarts() {
  ktest_holder_restarts "$1" "$2" ktest_cephcsi_restart
}

# ktest_cephcsi_volume_down — NodeUnpublishVolume and NodeUnstageVolume through the (restarted)
# plugin: ceph-csi unmounts, and for rbd runs its `rbd unmap` (no session: the real rbd, untouched
# by a shim). Then nothing of the volume may be left on the node: no mount at either path, no
# mapping of the image. Sets KTEST_CSI_UNSTAGED=yes.
ktest_cephcsi_volume_down() {
  ktest_csi unpublish -volume "$KTEST_CSI_VOL" -target "$KTEST_CSI_TARGET" ||
    e2e_die "NodeUnpublishVolume failed; cephcsi: $(tail -n 20 "$KTEST_CSI_LOG")"
  ktest_csi unstage -volume "$KTEST_CSI_VOL" -staging "$KTEST_CSI_STAGING" ||
    e2e_die "NodeUnstageVolume failed; cephcsi: $(tail -n 20 "$KTEST_CSI_LOG")"
  ! grep -F -e " $KTEST_CSI_TARGET " -e " $KTEST_CSI_STAGING" /proc/mounts ||
    e2e_die "still mounted after NodeUnpublish and NodeUnstage"
  if [ "$KTEST_CSI_TYPE" = rbd ]; then
    local d
    for d in /sys/bus/rbd/devices/*; do
      [ -e "$d/name" ] || continue
      [ "$(cat "$d/name")" != "$KTEST_CSI_IMAGE" ] || e2e_die "rbd/$KTEST_CSI_IMAGE is still mapped (/dev/rbd${d##*/}) after NodeUnstage"
    done
  fi
  KTEST_CSI_UNSTAGED=yes
}

# ktest_cephcsi_readback_copy IMAGE COPY — before DeleteVolume removes the image: the image copied
# inside the cluster (`rbd cp`, a userspace client in a fresh pod on the storage network), so the
# host can read what the workload wrote from Ceph's side after the scenario (ktest_expect_rbd_ext4
# of COPY).
ktest_cephcsi_readback_copy() {
  local plugin_ns=$KTEST_PLUGIN_NS probe_ns
  ktest_plugin_start readback storage
  probe_ns=$KTEST_PLUGIN_NS
  KTEST_PLUGIN_NS=$plugin_ns
  nsenter --net="/run/netns/$probe_ns" -- timeout 120 rbd -c "$KTEST_CONF" --client-mount-timeout 20 \
    cp --no-progress "rbd/$1" "rbd/$2" || e2e_die "rbd cp rbd/$1 rbd/$2 failed"
}

# ktest_cephcsi_rbd_holder_run FIGURE — an RBD holder run with the real plugin, once the holder,
# the plugin's pod, the form's shim and cephcsi are up: CreateVolume, NodeStageVolume (the map
# must have its monitor session in the holder's namespace), NodePublishVolume; the workload on the
# published path through KTEST_CEPHCSI_RESTARTS restarts (ktest_cephcsi_holder_restarts); NodeUnpublish and
# NodeUnstage through the restarted plugin (ktest_cephcsi_volume_down); the image copied for the
# host's check from Ceph's side; DeleteVolume. Prints FIGURE's line.
ktest_cephcsi_rbd_holder_run() {
  local figure=$1 dev
  ktest_cephcsi_volume_up
  dev=$(grep -F " $KTEST_CSI_TARGET " /proc/mounts | cut -d' ' -f1)
  e2e_log "ceph-csi staged rbd/$KTEST_CSI_IMAGE on $dev in ${KTEST_CSI_STAGE_MS} ms; published at $KTEST_CSI_TARGET"
  # The kernel client's monitor session is in the holder's namespace (the plugin's own RADOS
  # connection is in the plugin's, and dies with it).
  ss -N "$KTEST_HOLDER_NS" -Htn state established '( dport = :6789 or dport = :3300 )' | grep . >/dev/null ||
    e2e_die "no monitor session in the holder's namespace after NodeStageVolume"
  ktest_workload_start ccrbd "$KTEST_CSI_TARGET/data"
  ktest_cephcsi_holder_restarts ccrbd "$KTEST_CEPHCSI_RESTARTS"
  ktest_cephcsi_volume_down
  ktest_cephcsi_readback_copy "$KTEST_CSI_IMAGE" "$KTEST_CSI_IMAGE-readback"
  ktest_csi delete -volume "$KTEST_CSI_VOL" -secrets "$KTEST_CSI_SECRETS" ||
    e2e_die "DeleteVolume failed; cephcsi: $(tail -n 20 "$KTEST_CSI_LOG")"
  ktest_expect_rbd_ext4 "$figure" "$KTEST_CSI_IMAGE-readback" /data
  e2e_log "cephcsi starts (ms, to NodeGetInfo answered): ${KTEST_CSI_STARTS[*]}"
  echo "FIGURE $figure: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED, unstaged $KTEST_CSI_UNSTAGED, stage_ms $KTEST_CSI_STAGE_MS"
}

# ktest_nsenter_install — the nsenter form's layout: netns-exec linked as `nsenter` in a directory
# first on the plugin's PATH (ceph-csi runs `nsenter` by name). Sets KTEST_SHIM_DIR.
ktest_nsenter_install() {
  KTEST_SHIM_DIR=$KTEST_W/nsenter-shim
  install -d -m 0755 "$KTEST_SHIM_DIR"
  ln -s "$KTEST_EXEC_BIN" "$KTEST_SHIM_DIR/nsenter"
}

# ktest_cephcsi_library — the library mode's plugin: cephcsi built with integrations/ceph-csi
# (KTEST_CEPHCSI_LIBRARY_BIN) in place of the unmodified one, and an `nsenter` first on the
# plugin's PATH that fails every call and leaves a mark, so a stage that still went through
# nsenter fails instead of passing unnoticed (ktest_cephcsi_library_check).
ktest_cephcsi_library() {
  [ -x "${KTEST_CEPHCSI_LIBRARY_BIN:-}" ] ||
    e2e_die "no library cephcsi at '${KTEST_CEPHCSI_LIBRARY_BIN:-}': the build makes it (integrations/ceph-csi/build.sh)"
  KTEST_CEPHCSI_BIN=$KTEST_CEPHCSI_LIBRARY_BIN
  KTEST_SHIM_DIR=$KTEST_W/no-nsenter
  install -d -m 0755 "$KTEST_SHIM_DIR"
  printf '#!/bin/sh\necho "$*" >>%q\necho "nsenter must not run in library mode" >&2\nexit 126\n' \
    "$KTEST_W/nsenter-called" >"$KTEST_SHIM_DIR/nsenter"
  chmod 0755 "$KTEST_SHIM_DIR/nsenter"
}

# ktest_cephcsi_library_refused — the plugin up before the holder (config.json names its socket
# already): CreateVolume, then NodeStageVolume must fail with FailedPrecondition carrying the
# library's refusal naming the socket, and leave nothing behind (no mapping of the image, no
# mount): what the kubelet sees, and retries, when the plugin starts before the holder.
ktest_cephcsi_library_refused() {
  local sock out d
  sock=$(jq -r '.[0].rbd.netNamespaceFilePath' "$KTEST_CONFIG")
  [ ! -e "$sock" ] || e2e_die "ktest_cephcsi_library_refused: $sock exists already"
  ktest_cephcsi_create
  if out=$(ktest_csi stage -volume "$KTEST_CSI_VOL" -staging "$KTEST_CSI_STAGING" -secrets "$KTEST_CSI_SECRETS"); then
    e2e_die "NodeStageVolume succeeded with no holder behind $sock: $out"
  fi
  echo "$out"
  grep -F 'code=FailedPrecondition' <<<"$out" | grep -F "$sock" | grep -F 'refused, nothing ran' >/dev/null ||
    e2e_die "NodeStageVolume without the holder did not fail with FailedPrecondition naming $sock: $out"
  ! grep -F " $KTEST_CSI_STAGING " /proc/mounts || e2e_die "the refused NodeStageVolume left a mount"
  for d in /sys/bus/rbd/devices/*; do
    [ -e "$d/name" ] || continue
    [ "$(cat "$d/name")" != "$KTEST_CSI_IMAGE" ] || e2e_die "the refused NodeStageVolume mapped rbd/$KTEST_CSI_IMAGE"
  done
  e2e_log "before the holder: NodeStageVolume refused (FailedPrecondition, nothing mapped)"
}

# ktest_cephcsi_library_check — nsenter never ran, and every cephcsi start logged its kernel
# client's command as run in the holder's socket by the library.
ktest_cephcsi_library_check() {
  [ ! -e "$KTEST_W/nsenter-called" ] || e2e_die "cephcsi ran nsenter: $(cat "$KTEST_W/nsenter-called")"
  grep -h "command succeeded: [a-z]* in $KTEST_HOLDER_DIR/$KTEST_CID.net.sock" "$KTEST_W"/cephcsi.*.log | head -n 1 | grep . >/dev/null ||
    e2e_die "no cephcsi log says a command ran in $KTEST_HOLDER_DIR/$KTEST_CID.net.sock: $(grep -h 'command succeeded' "$KTEST_W"/cephcsi.*.log | head -n 3)"
}

# ktest_cephcsi_cephfs_holder_run FIGURE — the CephFS holder run with the real plugin, once the
# holder, the plugin's pod, the shims and cephcsi are up: CreateVolume (a subvolume in the group
# csi), NodeStageVolume (ceph-csi's `mount -t ceph MON:/volumes/csi/... STAGING -o
# name=admin,secretfile=...,mds_namespace=...`, whose helper is the mount.ceph shim), NodePublish;
# the workload through KTEST_CEPHCSI_RESTARTS restarts; the file's objects copied inside the
# cluster (DeleteVolume purges the subvolume's); NodeUnpublish, NodeUnstage, DeleteVolume.
ktest_cephcsi_cephfs_holder_run() {
  local figure=$1
  ktest_cephcsi_volume_up
  grep -F " $KTEST_CSI_STAGING ceph " /proc/mounts >/dev/null ||
    e2e_die "NodeStageVolume left no ceph mount at $KTEST_CSI_STAGING: $(grep ceph /proc/mounts)"
  e2e_log "ceph-csi staged $(grep -F " $KTEST_CSI_STAGING " /proc/mounts | cut -d' ' -f1) in ${KTEST_CSI_STAGE_MS} ms"
  ss -N "$KTEST_HOLDER_NS" -Htn state established '( dport = :6789 or dport = :3300 )' | grep . >/dev/null ||
    e2e_die "no monitor session in the holder's namespace after NodeStageVolume"
  ktest_workload_start ccfs "$KTEST_CSI_TARGET/data"
  ktest_cephcsi_holder_restarts ccfs "$KTEST_CEPHCSI_RESTARTS"
  ktest_cephcsi_cephfs_readback_copy "$figure" "$KTEST_CSI_TARGET/data"
  ktest_cephcsi_volume_down
  ktest_csi delete -volume "$KTEST_CSI_VOL" -secrets "$KTEST_CSI_SECRETS" ||
    e2e_die "DeleteVolume failed; cephcsi: $(tail -n 20 "$KTEST_CSI_LOG")"
  e2e_log "cephcsi starts (ms, to NodeGetInfo answered): ${KTEST_CSI_STARTS[*]}"
  echo "FIGURE $figure: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED, unstaged $KTEST_CSI_UNSTAGED, stage_ms $KTEST_CSI_STAGE_MS"
}

# ktest_cephcsi_cephfs_readback_copy FIGURE FILE — FILE's objects (its layout read as
# ktest_expect_cephfs reads it) copied in its data pool to <inode>-readback.<n> (`rados cp`, a
# userspace client in a fresh pod on the storage network), and the check from Ceph's side asked
# of the copies: DeleteVolume's purge of the subvolume may remove the originals before the host
# reads them. A missing object is a hole of the file (no copy: read as zeros).
ktest_cephcsi_cephfs_readback_copy() {
  local line fig kind pool ino objsize sha size n i plugin_ns=$KTEST_PLUGIN_NS probe_ns src
  line=$(ktest_expect_cephfs "$1" "$2")
  read -r _ fig kind pool ino objsize sha size <<<"$line"
  ktest_plugin_start readback storage
  probe_ns=$KTEST_PLUGIN_NS
  KTEST_PLUGIN_NS=$plugin_ns
  n=$(((size + objsize - 1) / objsize))
  for ((i = 0; i < n; i++)); do
    src=$(printf '%s.%08x' "$ino" "$i")
    nsenter --net="/run/netns/$probe_ns" -- timeout 60 rados -c "$KTEST_CONF" --client-mount-timeout 20 -p "$pool" \
      stat "$src" >/dev/null 2>&1 || continue
    nsenter --net="/run/netns/$probe_ns" -- timeout 60 rados -c "$KTEST_CONF" --client-mount-timeout 20 -p "$pool" \
      cp "$src" "$(printf '%s-readback.%08x' "$ino" "$i")" || e2e_die "rados cp $pool/$src failed"
  done
  echo "KTEST-VERIFY $fig $kind $pool $ino-readback $objsize $sha $size"
}

# --- csi-sanity, differential ------------------------------------------------------------------
# kubernetes-csi's csi-sanity (built and cached by scripts/setup.d/cephcsi.sh) against the real
# plugin, its Node Service and Controller Service specs (KTEST_SANITY_FOCUS), once in each layout
# the scenario sets up; ktest_cephcsi_sanity_compare then holds the two runs' passing sets equal.
KTEST_SANITY_FOCUS=${KTEST_SANITY_FOCUS:-'Node Service|Controller Service'}

# ktest_cephcsi_sanity NAME — one csi-sanity run on the plugin's socket, its specs' results in
# $KTEST_W/sanity-NAME/results.tsv (STATE<TAB>SPEC<TAB>the failure's message on one line, one line per spec;
# a spec the focus leaves out is "skipped" too). While it runs a sampler
# counts, every second, the kernel client's TCP sessions (sockets no process owns) in the holder's
# namespace and in the plugin's: in sanity-NAME/kernel_in_holder and kernel_in_plugin (samples
# that saw one). The secrets and the StorageClass parameters are those of ktest_cephcsi_volume_up.
ktest_cephcsi_sanity() {
  local name=$1 dir=$KTEST_W/sanity-$1 key rc=0 sampler
  install -d -m 0700 "$dir"
  ktest_at_cleanup ktest_sanity_leftovers "$dir"
  key=$(cat "$KTEST_KEYFILE")
  # Every secret field csi-sanity passes (a YAML map of maps); ceph-csi reads userID/userKey on the
  # node and adminID/adminKey in the controller.
  {
    local f
    for f in CreateVolumeSecret DeleteVolumeSecret ControllerPublishVolumeSecret \
      ControllerUnpublishVolumeSecret ControllerValidateVolumeCapabilitiesSecret NodeStageVolumeSecret \
      NodePublishVolumeSecret ControllerExpandVolumeSecret NodeExpandVolumeSecret CreateSnapshotSecret \
      DeleteSnapshotSecret ListSnapshotsSecret; do
      printf '%s:\n  userID: admin\n  userKey: "%s"\n  adminID: admin\n  adminKey: "%s"\n' "$f" "$key" "$key"
    done
  } >"$dir/secrets.yaml"
  case $KTEST_CSI_TYPE in
    rbd) printf 'clusterID: "%s"\npool: rbd\nimageFeatures: layering\n' "$KTEST_CID" ;;
    cephfs) printf 'clusterID: "%s"\nfsName: "%s"\n' "$KTEST_CID" "$KTEST_CEPH_FS" ;;
  esac >"$dir/parameters.yaml"
  [ -x "${KTEST_CSI_SANITY_BIN:-}" ] || e2e_die "no csi-sanity at '${KTEST_CSI_SANITY_BIN:-}': run sudo ./dev setup (scripts/setup.d/cephcsi.sh)"
  : >"$dir/kernel_in_holder"
  : >"$dir/kernel_in_plugin"
  # Stopped by its stop file (never by a PID that may have been reused by then).
  ktest_at_cleanup touch "$dir/stop"
  ktest_sanity_sampler "$dir" &
  sampler=$!
  timeout 900 "$KTEST_CSI_SANITY_BIN" -csi.endpoint "unix://$KTEST_CSI_SOCK" \
    -csi.secrets "$dir/secrets.yaml" -csi.testvolumeparameters "$dir/parameters.yaml" \
    -csi.testvolumesize $((64 << 20)) -csi.testvolumeexpandsize $((128 << 20)) \
    -csi.mountdir "$dir/mount" -csi.stagingdir "$dir/staging" \
    -ginkgo.focus "$KTEST_SANITY_FOCUS" -ginkgo.no-color -ginkgo.timeout 14m \
    -ginkgo.json-report "$dir/report.json" >"$dir/sanity.log" 2>&1 || rc=$?
  touch "$dir/stop"
  wait "$sampler" || true
  # 0 all passed, 1 some failed: both are results; anything else (a timeout, a crash) is not.
  [ "$rc" -le 1 ] && [ -s "$dir/report.json" ] ||
    e2e_die "csi-sanity ($name) ended with $rc and no report: $(tail -n 30 "$dir/sanity.log")"
  jq -r '.[].SpecReports[] | select(.LeafNodeType == "It")
         | [.State, ((.ContainerHierarchyTexts + [.LeafNodeText]) | join(" / ")),
            ((.Failure.Message // "") | split("\n") | map(gsub("^\\s+"; "")) | map(select(. != "")) | join(" ") | .[0:240])] | @tsv' \
    "$dir/report.json" | sort -t "$(printf '\t')" -k2 >"$dir/results.tsv"
  e2e_log "csi-sanity ($name): $(cut -f1 "$dir/results.tsv" | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }')kernel sessions seen in the holder's namespace in $(wc -l <"$dir/kernel_in_holder") samples, in the plugin's in $(wc -l <"$dir/kernel_in_plugin")"
}

# ktest_sanity_leftovers DIR — what a failed spec may leave: mounts below DIR (deepest first) and
# mappings of ceph-csi's images (csi-vol-*), undone bounded.
ktest_sanity_leftovers() {
  local m d
  for m in $(awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r); do
    ktest_bounded 20 "umount -l $m" umount -l "$m"
  done
  for d in /sys/bus/rbd/devices/*; do
    [ -e "$d/name" ] || continue
    case $(cat "$d/name") in csi-vol-*) ktest_unmap_image_force "$(cat "$d/name")" ;; esac
  done
}

# ktest_sanity_sampler DIR — the sampler of ktest_cephcsi_sanity (runs until DIR/stop exists).
ktest_sanity_sampler() {
  local dir=$1
  while [ ! -e "$dir/stop" ] && sleep 1; do
    if [ -n "${KTEST_HOLDER_NS:-}" ] && [ -n "$(ktest_kernel_sessions "$KTEST_HOLDER_NS")" ]; then
      echo x >>"$dir/kernel_in_holder"
    fi
    if [ -n "$(ktest_kernel_sessions "$KTEST_PLUGIN_NS")" ]; then
      echo x >>"$dir/kernel_in_plugin"
    fi
  done
}

# ktest_kernel_sessions NS — NS's established TCP sessions that no process owns: the kernel
# clients' (a userspace client's socket, cephcsi's own RADOS connections included, shows its
# process in `ss -p`).
ktest_kernel_sessions() {
  ss -N "$1" -Htnp state established | awk '!/users:/'
}

# ktest_cephcsi_sanity_compare FIGURE WITHOUT WITH — the differential: the specs that passed in the
# run WITHOUT (no holder) must be exactly those that passed in the run WITH (through the holder);
# the run WITH must have had the kernel sessions in the holder's namespace and never in the
# plugin's, the run WITHOUT in the plugin's (the sampler's control). Prints FIGURE's line and the
# specs ceph-csi itself fails.
ktest_cephcsi_sanity_compare() {
  local figure=$1 a=$KTEST_W/sanity-$2 b=$KTEST_W/sanity-$3 diff_n
  awk -F'\t' '$1 == "passed" { print $2 }' "$a/results.tsv" >"$a/passed"
  awk -F'\t' '$1 == "passed" { print $2 }' "$b/results.tsv" >"$b/passed"
  cut -f2 "$a/results.tsv" >"$a/specs"
  cut -f2 "$b/results.tsv" >"$b/specs"
  cmp -s "$a/specs" "$b/specs" || e2e_die "the two csi-sanity runs ran different specs: $(diff "$a/specs" "$b/specs")"
  diff_n=$({ diff "$a/passed" "$b/passed" || true; } | grep -c '^[<>]' || true)
  awk -F'\t' '$1 == "failed" { print "csi-sanity without the holder, failed: " $2 " (" $3 ")" }' "$a/results.tsv"
  [ "$diff_n" -eq 0 ] || e2e_die "csi-sanity's passing specs differ with the holder ($diff_n): $(diff "$a/passed" "$b/passed")"
  [ -s "$b/kernel_in_holder" ] || e2e_die "csi-sanity through the holder: no kernel session was ever seen in the holder's namespace"
  [ ! -s "$b/kernel_in_plugin" ] || e2e_die "csi-sanity through the holder: kernel sessions seen in the plugin's namespace ($(wc -l <"$b/kernel_in_plugin") samples)"
  [ -s "$a/kernel_in_plugin" ] || e2e_die "csi-sanity without the holder: no kernel session ever seen in the plugin's namespace (the sampler sees nothing?)"
  echo "FIGURE $figure: specs $(wc -l <"$a/specs"), passed_without $(ktest__sanity_count "$a" passed), passed_with $(ktest__sanity_count "$b" passed), failed_without $(ktest__sanity_count "$a" failed), failed_with $(ktest__sanity_count "$b" failed), skipped $(ktest__sanity_count "$a" skipped), differ $diff_n"
}

# ktest__sanity_count DIR STATE — how many of a csi-sanity run's specs ended in STATE.
ktest__sanity_count() { awk -F'\t' -v s="$2" '$1 == s' "$1/results.tsv" | wc -l; }
