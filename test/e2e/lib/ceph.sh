# shellcheck shell=bash
# A real Ceph 16 cluster from the Debian packages, confined to its own "storage network" namespace:
# one monitor, one OSD on memstore, optionally one MDS with a CephFS, cephx on, no mgr (RBD and
# CephFS work without it). Every daemon runs under `nsenter --net=` and is tracked by PID in the
# scope it was started in.
#
# The storage namespace carries a bridge "storage0" with the cluster's address; pods reach the
# storage network through a veth whose peer is enslaved to that bridge (see net.sh).
#
# Needs common.sh.

# Bounded client calls: an unreachable cluster makes rbd wait 300 s and ceph forever by default.
E2E_CEPH_TIMEOUT=${E2E_CEPH_TIMEOUT:-5}

# e2e_ceph_create SCOPE DIR NETNS IP/PREFIX [mds] — build and start the cluster; writes DIR/env with
# CEPH_CONF, the fsid and the monitor address for the scenarios.
e2e_ceph_create() {
  local scope=$1 dir=$2 ns=$3 cidr=$4 with_mds=${5:-}
  local ip=${cidr%/*} fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  mkdir -p "$dir"/{mon,osd,mds,run,log}
  local conf=$dir/ceph.conf

  e2e_netns_add "$scope" "$ns"
  # A bridge whose address was never set takes its lowest port's: a plugin pod's storage interface
  # coming and going would change it under the holder's ARP entry for the cluster and cost a
  # kernel-owned flow its packets until that entry is resolved again. A set address stays.
  local mac a b c d
  IFS=. read -r a b c d <<<"$ip"
  mac=$(printf '02:00:%02x:%02x:%02x:%02x' "$a" "$b" "$c" "$d")
  ip -n "$ns" link add storage0 address "$mac" type bridge
  ip -n "$ns" addr add "$cidr" dev storage0
  ip -n "$ns" link set storage0 up

  # Size-1 pools and no autoscaler: one OSD must give HEALTH_OK-ish service at once. The admin
  # keyring sits under [client] only: daemons that found it under [global] would use it.
  # Clients get no admin socket: two concurrent clients would clash on one, and pods see the
  # cluster directory read-only.
  cat >"$conf" <<EOF
[global]
fsid = $fsid
mon host = [v2:$ip:3300,v1:$ip:6789]
public network = ${cidr%.*}.0/${cidr#*/}
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
mon allow pool size one = true
mon warn on pool no redundancy = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = 536870912
paxos propose interval = 0.1
mon data avail warn = 1
run dir = $dir/run
mon data = $dir/mon/\$cluster-\$id
osd data = $dir/osd/\$cluster-\$id
mds data = $dir/mds/\$cluster-\$id
[mon]
log file = $dir/log/\$name.log
[osd]
log file = $dir/log/\$name.log
[mds]
log file = $dir/log/\$name.log
[client]
keyring = $dir/admin.keyring
admin socket =
log file = /dev/null
EOF

  ceph-authtool "$dir/mon.keyring" --create-keyring --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$dir/admin.keyring" --create-keyring --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
  # The bare key, for tools that take --keyfile (rbd map, ceph-fuse as ceph-csi runs them).
  ceph-authtool "$dir/admin.keyring" -n client.admin -p >"$dir/admin.key"
  ceph-authtool "$dir/mon.keyring" --import-keyring "$dir/admin.keyring" >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:$ip:3300,v1:$ip:6789]" "$dir/monmap" >/dev/null
  mkdir -p "$dir/mon/ceph-a"
  nsenter --net="/run/netns/$ns" -- ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/mon.keyring" \
    >"$dir/log/mkfs-mon.log" 2>&1 || e2e_die "ceph-mon --mkfs failed: $(tail -n 5 "$dir/log/mkfs-mon.log")"
  e2e_spawn "$scope" "$ns.mon.a" "$ns" "$dir/log/mon.a.out" ceph-mon -f -c "$conf" -i a

  cat >"$dir/env" <<EOF
CEPH_CONF=$conf
E2E_CEPH_DIR=$dir
E2E_CEPH_NETNS=$ns
E2E_CEPH_FSID=$fsid
E2E_CEPH_IP=$ip
E2E_CEPH_MON=$ip:6789
E2E_CEPH_MONV2=$ip:3300
EOF
  e2e_wait_until 30 "monitor of $ns to answer" e2e_ceph "$dir" "$ns" mon stat ||
    e2e_die "monitor did not come up; see $dir/log/mon.a.log"

  # The OSD's key must exist in the cluster before --mkfs, or mkfs cannot register it.
  local uuid key id
  uuid=$(cat /proc/sys/kernel/random/uuid)
  key=$(ceph-authtool --gen-print-key)
  printf '{"cephx_secret": "%s"}\n' "$key" >"$dir/osd-secret.json"
  id=$(e2e_ceph "$dir" "$ns" osd new "$uuid" -i "$dir/osd-secret.json")
  rm -f "$dir/osd-secret.json"
  mkdir -p "$dir/osd/ceph-$id"
  ceph-authtool "$dir/osd/ceph-$id/keyring" --create-keyring --name "osd.$id" --add-key "$key" >/dev/null
  nsenter --net="/run/netns/$ns" -- ceph-osd -c "$conf" -i "$id" --mkfs --osd-uuid "$uuid" \
    >"$dir/log/mkfs-osd.log" 2>&1 || e2e_die "ceph-osd --mkfs failed: $(tail -n 5 "$dir/log/mkfs-osd.log")"
  e2e_spawn "$scope" "$ns.osd.$id" "$ns" "$dir/log/osd.$id.out" ceph-osd -f -c "$conf" -i "$id"

  if [ "$with_mds" = mds ]; then
    mkdir -p "$dir/mds/ceph-a"
    e2e_ceph "$dir" "$ns" auth get-or-create mds.a mon 'profile mds' osd 'allow rwx' mds 'allow *' \
      -o "$dir/mds/ceph-a/keyring"
    e2e_spawn "$scope" "$ns.mds.a" "$ns" "$dir/log/mds.a.out" ceph-mds -f -c "$conf" -i a
  fi

  e2e_wait_until 60 "osd.$id of $ns to be up" e2e_ceph_osd_up "$dir" "$ns" ||
    e2e_die "osd.$id did not come up; see $dir/log/osd.$id.log"
  e2e_ceph "$dir" "$ns" osd pool create rbd 8 8 >/dev/null 2>&1
  e2e_ceph_run "$dir" "$ns" rbd pool init rbd
  if [ "$with_mds" = mds ]; then
    e2e_ceph "$dir" "$ns" osd pool create cephfs_metadata 8 8 >/dev/null 2>&1
    e2e_ceph "$dir" "$ns" osd pool create cephfs_data 8 8 >/dev/null 2>&1
    e2e_ceph "$dir" "$ns" fs new cephfs cephfs_metadata cephfs_data >/dev/null 2>&1
    e2e_wait_until 60 "an active MDS in $ns" e2e_ceph_mds_active "$dir" "$ns" ||
      e2e_die "the MDS did not become active; see $dir/log/mds.a.log"
  fi
  echo "E2E_CEPH_FS=$([ "$with_mds" = mds ] && echo cephfs)" >>"$dir/env"
}

# e2e_ceph DIR NETNS ARGS... — the ceph CLI of that cluster, from inside its storage namespace.
e2e_ceph() {
  local dir=$1 ns=$2
  shift 2
  nsenter --net="/run/netns/$ns" -- ceph -c "$dir/ceph.conf" --connect-timeout "$E2E_CEPH_TIMEOUT" "$@"
}

# e2e_ceph_run DIR NETNS CMD ARGS... — any Ceph client tool, bounded, inside the storage namespace.
e2e_ceph_run() {
  local dir=$1 ns=$2
  shift 2
  CEPH_CONF=$dir/ceph.conf nsenter --net="/run/netns/$ns" -- timeout 30 "$@"
}

e2e_ceph_osd_up() {
  [ "$(e2e_ceph "$1" "$2" osd dump -f json | jq '[.osds[] | select(.up == 1)] | length')" -ge 1 ]
}

e2e_ceph_mds_active() {
  e2e_ceph "$1" "$2" mds stat | grep 'up:active' >/dev/null
}
