# shellcheck shell=bash
# The servers of the other kernel clients ceph-csi starts, inside the guest: a kernel NVMe/TCP
# target (nvmet through configfs, a file-backed namespace) and a kernel NFS server (nfsd, NFSv4
# only), both in the storage network's namespace (k-storage, guest/node.sh) at KTEST_TARGET_IP on
# its bridge storage0. A pod reaches them only with net1 on storage (the holder, a control's
# plugin); the plugin's pod network (198.19.0.0/17) has no route there. The backing file and the
# exported directory are read directly by the scenario once the client is gone: the check from
# the target's side ("verified_from_target").
# Needs guest/lib.sh (sourced first). Everything set up here is undone by ktest_scenario_cleanup
# through ktest_at_cleanup, whatever happened.

KTEST_TARGET_NS=k-storage
# Between the cluster (.1) and the pods' net1 addresses (.16 upwards, test/e2e/lib/net.sh).
KTEST_TARGET_IP=$(e2e_ip_add "$KTEST_CEPH_IP" 9)
KTEST_NVME_PORT=4420
KTEST_NVMET=/sys/kernel/config/nvmet
KTEST_NFSD=/proc/fs/nfsd

ktest_target_exec() { nsenter --net="/run/netns/$KTEST_TARGET_NS" -- "$@"; }

# The target's address on storage0, once per VM (kept: later scenarios' servers reuse it).
ktest_target_address() {
  # grep reads all of ip's output (no -q): under pipefail, an ip that wrote its next line after
  # grep had quit would fail with SIGPIPE, and the address would seem absent.
  if ! ip -n "$KTEST_TARGET_NS" -o addr show dev storage0 | grep -F " $KTEST_TARGET_IP/" >/dev/null; then
    ip -n "$KTEST_TARGET_NS" addr add "$KTEST_TARGET_IP/20" dev storage0
  fi
}

# ktest_listening NS PORT — a TCP listener on PORT in NS ("-": the guest's initial namespace).
ktest_listening() {
  local args=(-Htln "sport = :$2")
  [ "$1" = - ] || args=(-N "$1" "${args[@]}")
  [ -n "$(ss "${args[@]}")" ]
}

# --- NVMe/TCP --------------------------------------------------------------------------------
# ktest_nvmet_up NAME — subsystem KTEST_NVME_NQN (any host) with namespace 1 backed by the 64 MiB
# file KTEST_NVME_FILE (buffered: the backing file is on tmpfs, which takes no O_DIRECT), on a tcp
# port at KTEST_TARGET_IP:4420. The port's listening socket is made in the namespace of the process
# that links the subsystem to it (nvmet-tcp's add_port), so that link is made from k-storage.
ktest_nvmet_up() {
  local name=$1 sub port
  ktest_target_address
  mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
  [ -d "$KTEST_NVMET" ] || e2e_die "no $KTEST_NVMET: the nvmet module is not loaded (lib/vm.sh KVM_MODULES)"
  KTEST_NVME_NQN=nqn.2026-12.io.netns-holder.ktest:$name-$KTEST_TAG
  KTEST_NVME_FILE=$KTEST_W/$name.nvme.img
  KTEST_NVME_PORT_DIR=$KTEST_NVMET/ports/1
  [ ! -e "$KTEST_NVME_PORT_DIR" ] || e2e_die "nvmet port 1 exists already (an earlier scenario did not clean up): $(ls -R "$KTEST_NVME_PORT_DIR")"
  truncate -s 64M "$KTEST_NVME_FILE"
  sub=$KTEST_NVMET/subsystems/$KTEST_NVME_NQN
  ktest_at_cleanup ktest_nvmet_down
  mkdir "$sub"
  echo 1 >"$sub/attr_allow_any_host"
  mkdir "$sub/namespaces/1"
  echo 1 >"$sub/namespaces/1/buffered_io"
  echo -n "$KTEST_NVME_FILE" >"$sub/namespaces/1/device_path"
  echo 1 >"$sub/namespaces/1/enable"
  port=$KTEST_NVME_PORT_DIR
  mkdir "$port"
  echo tcp >"$port/addr_trtype"
  echo ipv4 >"$port/addr_adrfam"
  echo "$KTEST_TARGET_IP" >"$port/addr_traddr"
  echo "$KTEST_NVME_PORT" >"$port/addr_trsvcid"
  ktest_target_exec ln -s "$sub" "$port/subsystems/$KTEST_NVME_NQN"
  ktest_listening "$KTEST_TARGET_NS" "$KTEST_NVME_PORT" ||
    e2e_die "nvmet: no listener on $KTEST_TARGET_IP:$KTEST_NVME_PORT in $KTEST_TARGET_NS after enabling port 1"
  ! ktest_listening - "$KTEST_NVME_PORT" || e2e_die "nvmet listens on $KTEST_NVME_PORT in the guest's initial namespace, not only in $KTEST_TARGET_NS"
  e2e_log "nvmet: $KTEST_NVME_NQN on $KTEST_TARGET_IP:$KTEST_NVME_PORT (in $KTEST_TARGET_NS), namespace 1 = $KTEST_NVME_FILE"
}

# ktest_nvmet_down — every controller of the subsystem disconnected (bounded: a control's may be
# reconnecting), then the port, the namespace and the subsystem removed.
ktest_nvmet_down() {
  local sub=$KTEST_NVMET/subsystems/$KTEST_NVME_NQN
  if [ -n "$(ktest_nvme_ctrls "$KTEST_NVME_NQN")" ]; then
    ktest_bounded 30 "nvme disconnect -n $KTEST_NVME_NQN" nvme disconnect -n "$KTEST_NVME_NQN"
  fi
  rm -f "$KTEST_NVME_PORT_DIR/subsystems/$KTEST_NVME_NQN"
  [ ! -d "$KTEST_NVME_PORT_DIR" ] || rmdir "$KTEST_NVME_PORT_DIR"
  if [ -d "$sub" ]; then
    echo 0 >"$sub/namespaces/1/enable" 2>/dev/null || true
    rmdir "$sub/namespaces/1" 2>/dev/null || true
    rmdir "$sub"
  fi
  e2e_log "cleanup: nvmet subsystem $KTEST_NVME_NQN and port 1 removed"
}

# ktest_nvme_ctrls NQN — the host's controllers (nvmeN) connected to subsystem NQN.
ktest_nvme_ctrls() {
  local c
  for c in /sys/class/nvme/nvme*; do
    [ -e "$c/subsysnqn" ] && [ "$(cat "$c/subsysnqn")" = "$1" ] && echo "${c##*/}"
  done
  return 0
}

# ktest_nvme_disk NQN — the block device (/dev/nvmeXnY, the multipath head when there is one) of
# namespace 1 of subsystem NQN, once it exists.
ktest_nvme_disk() {
  local b
  for b in /sys/block/nvme*n*; do
    case ${b##*/} in *c*) continue ;; esac
    [ -e "$b/device/subsysnqn" ] && [ "$(cat "$b/device/subsysnqn")" = "$1" ] && [ -b "/dev/${b##*/}" ] &&
      { echo "/dev/${b##*/}"; return 0; }
  done
  return 1
}

# ktest_target_shims_install — netns-exec installed as the plugin image installs it for the nvmeof
# and NFS drivers (manifests/images): a link named nvme in a directory first on the plugin's PATH
# (the real /usr/sbin/nvme after it), and bound over mount(8)'s helper /usr/sbin/mount.nfs, so
# /sbin/mount.nfs4 and the unmount helpers /sbin/umount.nfs{,4} (nfs-utils' links to it) reach the
# shim too; the real mount.nfs copied to a directory NETNS_EXEC_REAL_PATH names, with those three
# links beside it. NETNS_EXEC_TARGETS declares the target's address as the holder's. The bind is
# undone with the scenario's scope. Sets KTEST_SHIM_DIR and KTEST_SHIM_ENV (ktest_plugin_call).
ktest_target_shims_install() {
  local l
  KTEST_SHIM_DIR=$KTEST_W/shim
  install -d -m 0755 "$KTEST_SHIM_DIR" "$KTEST_W/real"
  ln -s "$KTEST_EXEC_BIN" "$KTEST_SHIM_DIR/nvme"
  cp /usr/sbin/mount.nfs "$KTEST_W/real/mount.nfs"
  for l in mount.nfs4 umount.nfs umount.nfs4; do ln -s mount.nfs "$KTEST_W/real/$l"; done
  mount --bind "$KTEST_EXEC_BIN" /usr/sbin/mount.nfs
  e2e_track_mount "$KTEST_SCOPE" /usr/sbin/mount.nfs
  KTEST_SHIM_ENV=("NETNS_EXEC_REAL_PATH=$KTEST_PLUGIN_PATH:$KTEST_W/real"
    "NETNS_EXEC_TARGETS=$KTEST_CID=$KTEST_TARGET_IP")
}

# ktest_nvme_connect_args — `nvme connect` as ceph-csi's nvmeof node plugin calls it
# (internal/nvmeof: -t tcp -n NQN -a ADDR -s PORT -l 1800, ctrl-loss-tmo 30 min).
ktest_nvme_connect_args() {
  echo connect -t tcp -n "$KTEST_NVME_NQN" -a "$KTEST_TARGET_IP" -s "$KTEST_NVME_PORT" -l 1800
}

# ktest_nvme_wait_disk — the namespace's block device (printed), bounded.
ktest_nvme_wait_disk() {
  e2e_wait_until 30 "the block device of $KTEST_NVME_NQN" ktest_nvme_disk "$KTEST_NVME_NQN" ||
    e2e_die "no block device for $KTEST_NVME_NQN 30 s after nvme connect (controllers: $(ktest_nvme_ctrls "$KTEST_NVME_NQN"))"
  ktest_nvme_disk "$KTEST_NVME_NQN"
}

# ktest_expect_nvme_file — the backing file, read directly on the target's side once the host
# has disconnected: its first KTEST_W_SIZE bytes must hash to the workload's KTEST_W_SHA256.
# Sets KTEST_T_VERIFIED (yes/no).
ktest_expect_nvme_file() {
  local got
  got=$(head -c "$KTEST_W_SIZE" "$KTEST_NVME_FILE" | sha256sum | cut -d' ' -f1)
  e2e_log "read from the target ($KTEST_NVME_FILE, first $KTEST_W_SIZE bytes): sha256 $got; the guest wrote sha256 $KTEST_W_SHA256"
  KTEST_T_VERIFIED=no
  [ "$got" != "$KTEST_W_SHA256" ] || KTEST_T_VERIFIED=yes
}

# --- NFS -----------------------------------------------------------------------------------
# nfsd's state is per network namespace: its file system (/proc/fs/nfsd), mounted from k-storage,
# is k-storage's instance; rpc.nfsd, rpc.mountd and exportfs run there too. NFSv4 only (no
# rpcbind, no lockd), grace and lease times at their minimum (10 s) so a fresh server takes opens
# soon. The export: a tmpfs KTEST_NFS_ROOT as the NFSv4 root (fsid=0), its directory "export"
# mounted by the clients as KTEST_TARGET_IP:/export.

# ktest_nfsd_up — the server, exporting to the storage network.
ktest_nfsd_up() {
  ktest_target_address
  [ -d "$KTEST_NFSD" ] || e2e_die "no $KTEST_NFSD: the nfsd module is not loaded (lib/vm.sh KVM_MODULES)"
  ! mountpoint -q "$KTEST_NFSD" || e2e_die "$KTEST_NFSD is mounted already (an earlier scenario's nfsd was not stopped)"
  KTEST_NFS_ROOT=$KTEST_W/nfs-root
  mkdir -p "$KTEST_NFS_ROOT"
  mount -t tmpfs -o size=64m,mode=0755 tmpfs "$KTEST_NFS_ROOT"
  e2e_track_mount "$KTEST_SCOPE" "$KTEST_NFS_ROOT"
  mkdir -m 0777 "$KTEST_NFS_ROOT/export"
  ktest_at_cleanup ktest_nfsd_down
  ktest_target_exec mount -t nfsd nfsd "$KTEST_NFSD"
  ktest_target_exec exportfs -o rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0 "198.18.0.0/15:$KTEST_NFS_ROOT"
  e2e_spawn "$KTEST_SCOPE" mountd "$KTEST_TARGET_NS" "$KTEST_W/mountd.log" rpc.mountd -F -N 2 -N 3 -u
  ktest_target_exec rpc.nfsd -N 3 -U -G 10 -L 10 4
  ktest_listening "$KTEST_TARGET_NS" 2049 || e2e_die "nfsd: no listener on port 2049 in $KTEST_TARGET_NS"
  ! ktest_listening - 2049 || e2e_die "nfsd listens on 2049 in the guest's initial namespace, not only in $KTEST_TARGET_NS"
  e2e_log "nfsd (NFSv4, $(cat "$KTEST_NFSD/versions")) in $KTEST_TARGET_NS on $KTEST_TARGET_IP:2049, exporting $KTEST_NFS_ROOT (fsid=0)"
}

# ktest_nfsd_down — the server's threads stopped, the export dropped, its file system unmounted
# (mountd and the export's tmpfs go with the scenario's scope).
ktest_nfsd_down() {
  if mountpoint -q "$KTEST_NFSD"; then
    ktest_bounded 30 "rpc.nfsd 0" nsenter --net="/run/netns/$KTEST_TARGET_NS" -- rpc.nfsd 0
    ktest_bounded 30 "exportfs -ua" nsenter --net="/run/netns/$KTEST_TARGET_NS" -- exportfs -ua
    umount "$KTEST_NFSD"
  fi
  e2e_log "cleanup: nfsd in $KTEST_TARGET_NS stopped"
}

# ktest_nfs_options — the mount options, ceph-csi-like (a StorageClass's mountOptions for an NFS
# volume): NFSv4.1 over TCP, hard (a server that does not answer blocks I/O, it does not fail
# it), a short timeo (deciseconds) so a cut-off client says "not responding" within seconds.
ktest_nfs_options() { echo nfsvers=4.1,proto=tcp,hard,timeo=50,retrans=2; }

# ktest_expect_nfs_file NAME — the exported file (KTEST_NFS_ROOT/export/NAME), read directly on
# the server's side once the client has unmounted: it must hash to the workload's KTEST_W_SHA256
# and have KTEST_W_SIZE bytes. Sets KTEST_T_VERIFIED (yes/no).
ktest_expect_nfs_file() {
  local f=$KTEST_NFS_ROOT/export/$1 got size
  got=$(sha256sum "$f" | cut -d' ' -f1)
  size=$(stat -c %s "$f")
  e2e_log "read from the server ($f): $size bytes, sha256 $got; the guest wrote $KTEST_W_SIZE bytes, sha256 $KTEST_W_SHA256"
  KTEST_T_VERIFIED=no
  [ "$got" != "$KTEST_W_SHA256" ] || [ "$size" != "$KTEST_W_SIZE" ] || KTEST_T_VERIFIED=yes
}

# ktest_nfs_client_down — the scenario's NFS mount (KTEST_NFS_MNT) gone: forced and lazy, bounded
# (a control's client has no route left to its server). Nothing here may stat the mount point: on
# a hard mount whose server is out of reach a stat blocks for good (mountpoint(1) does, and so
# does umount(8) unless told not to canonicalize the path: -c).
ktest_nfs_client_down() {
  if ktest_mounted "$KTEST_NFS_MNT"; then
    # -i: no umount.nfs helper, which may be the shim here (ktest_target_shims_install), with no
    # NETNS_EXEC_REAL_PATH in this environment to find the real one by.
    ktest_bounded 20 "umount -i -c -f -l $KTEST_NFS_MNT" umount -i -c -f -l "$KTEST_NFS_MNT"
  fi
}

# ktest_mounted DIR — something is mounted on DIR (read from the mount table, no stat of DIR).
ktest_mounted() { awk -v m="$1" '$2 == m { found = 1 } END { exit !found }' /proc/self/mounts; }

# KTEST_NFS_NULL_CALL — python3 -c text, argument the server's address: one RPC NULL call to NFS
# version 4 (program 100003) over TCP port 2049 (RFC 5531: a record marker, then xid, CALL, RPC
# version 2, program, version, procedure 0, null credential and verifier); exits 0 on an accepted
# reply with status SUCCESS, with a message otherwise.
# shellcheck disable=SC2016
KTEST_NFS_NULL_CALL='
import socket, struct, sys
call = struct.pack(">10I", 0x4b54, 0, 2, 100003, 4, 0, 0, 0, 0, 0)
s = socket.create_connection((sys.argv[1], 2049), timeout=20)
s.sendall(struct.pack(">I", 0x80000000 | len(call)) + call)
reply = b""
while len(reply) < 4 + 24:
    chunk = s.recv(4096)
    if not chunk:
        break
    reply += chunk
fields = struct.unpack(">6I", reply[4:28]) if len(reply) >= 28 else ()
# xid, REPLY (1), MSG_ACCEPTED (0), verifier flavor and length, accept_stat SUCCESS (0)
if len(fields) != 6 or fields[0] != 0x4b54 or fields[1] != 1 or fields[2] != 0 or fields[5] != 0:
    sys.exit("NFS NULL call to %s:2049: unexpected reply %r" % (sys.argv[1], reply[:28]))
print("NFS v4 NULL call to %s:2049: accepted" % sys.argv[1])
'
