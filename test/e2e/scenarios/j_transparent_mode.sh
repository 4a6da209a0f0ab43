# shellcheck shell=bash
# j. Transparent mode: netns-exec installed as `rbd` and `mount.ceph` (the plugin image's layout),
#    a ceph-csi config.json with monitors and no netNamespaceFilePath, and the plugin's plain calls
#    — `rbd -m MONS --id ... ls/create/info/watch/map`, `mount -t ceph MONS:/ DIR -o ...` through
#    mount(8)'s helper search — run in the held cluster's holder namespace: sessions there (inspect),
#    none in the plugin's. A held cluster whose holder is gone: 125, the real program never exec'd.
#    An unheld cluster's command, and `rbd --version`, are the real program, untouched: the
#    unheld cluster's runs in the plugin's own namespace and reaches it there.
#    The plugin has a storage interface on each cluster's network, as in the field, so a routed
#    call is proven by where it ran, never by its working: strace (-f, -y) records each call's
#    setns (with the namespace it entered) and execve.
e2e_require_holder
e2e_require_exec shim
command -v strace >/dev/null || e2e_die "strace is needed to record what the shims exec"

cid=j-c1
other=j-c2
cfg=$E2E_RUN/csi/j/config.json
key=$E2E_RUN/c1/admin.key
mon=$(e2e_cluster_var c1 E2E_CEPH_MON)
mon_ip=$(e2e_cluster_var c1 E2E_CEPH_IP)
mon2=$(e2e_cluster_var c2 E2E_CEPH_MON)
holder=$E2E_ID-j-holder
plugin=$E2E_ID-j-plugin
img=j-img-$E2E_TAG
work=$E2E_KUBELET/scn-j
# Fresh each run: an earlier run's files (its watch's pid file) must not be read as this run's.
rm -rf "$work"
mkdir -p "$work"

e2e_images
tree=$E2E_RUN/images/plugin
[ -L "$tree/usr/local/bin/rbd" ] ||
  e2e_die "the plugin image tree has no rbd shim (see $E2E_RUN/images/plugin.log)"

e2e_section "config.json: monitors only, no netNamespaceFilePath; $cid held, $other not"
mkdir -p "$(dirname "$cfg")"
jq -n --arg a "$cid" --arg ma "v1:$mon" --arg b "$other" --arg mb "$mon2" \
  '[{clusterID: $a, monitors: [$ma]}, {clusterID: $b, monitors: [$mb]}]' >"$cfg"
cat "$cfg"

e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
# mount(8) runs helpers from /sbin (here /usr/sbin): the shim goes there. The image moves the real
# mount.ceph to /usr/bin; this pod's /usr is the host's, so the real one is a copy in
# /opt/netns-real, named by NETNS_EXEC_REAL_PATH (mount(8) removes PATH from a helper's
# environment; the shim's default list then is /usr/local/sbin:...:/bin).
mkdir -p "$E2E_SCOPE/real"
cp /usr/sbin/mount.ceph "$E2E_SCOPE/real/mount.ceph"
e2e_plugin_start "$E2E_SCOPE" "$plugin" \
  --ro "$tree/usr/local/bin/netns-exec:/usr/sbin/mount.ceph" \
  --ro "$E2E_SCOPE/real:/opt/netns-real"
nsenter -t "$(e2e_pod_pid "$plugin")" -m -- mount -t tmpfs -o ro,mode=0755 none /sys/bus ||
  e2e_die "could not hide /sys/bus in the plugin pod"
holder_ino=$(e2e_ns_id "/run/netns/$E2E_HOLDER_NS")
plugin_ino=$(e2e_ns_id "/run/netns/$E2E_PLUGIN_NS")

# The plugin container's environment, as the chart renders it.
penv=(env "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  "NETNS_EXEC_CONFIG=$cfg" "NETNS_EXEC_HOLDER_DIR=$E2E_HOLDER_DIR" "NETNS_EXEC_HELD_CLUSTERS=$cid")
plug() { e2e_pod_exec "$plugin" "${penv[@]}" "$@"; }
# traced NAME CMD... — CMD under strace; the trace is $E2E_SCOPE/NAME.trace.
traced() {
  local name=$1
  shift
  plug strace -f -qq -y -e trace=setns,execve -o "$work/$name.trace" "$@"
}
# entered NAME PROGRAM — the trace shows setns into the holder's namespace, then execve(PROGRAM).
entered() {
  grep -q "setns([0-9]*<net:\[$holder_ino\]>, CLONE_NEWNET) = 0" "$work/$1.trace" ||
    e2e_die "$1: no setns into the holder's namespace (net:[$holder_ino]): $(cat "$work/$1.trace")"
  grep -q "execve(\"$2\"" "$work/$1.trace" || e2e_die "$1: $2 was not exec'd: $(cat "$work/$1.trace")"
}
untouched() {
  ! grep -q 'setns(' "$work/$1.trace" || e2e_die "$1: entered a namespace: $(cat "$work/$1.trace")"
  grep -q "execve(\"$2\"" "$work/$1.trace" || e2e_die "$1: $2 was not exec'd: $(cat "$work/$1.trace")"
}
rbd_auth=(-m "$mon" --id admin --keyfile "$key" --client-mount-timeout 5)

e2e_section "netns-exec shim explain -- rbd -m $mon ... ls"
plug netns-exec shim explain -- rbd "${rbd_auth[@]}" ls rbd | tee "$E2E_SCOPE/explain"
grep -q "cluster: *\"$cid\" (held)" "$E2E_SCOPE/explain" || e2e_die "explain does not name $cid as held"
grep -q "real: */usr/bin/rbd" "$E2E_SCOPE/explain" || e2e_die "explain does not name /usr/bin/rbd as the real rbd"

e2e_section "run --cluster-id and doctor --cluster-id from the plugin: the holder serves them too"
# No netNamespaceFilePath: the environment that routes the shims routes these (one decision).
plug netns-exec run --cluster-id "$cid" --config "$cfg" -- readlink /proc/self/ns/net \
  >"$E2E_SCOPE/run-ns" 2>"$E2E_SCOPE/run.err" || e2e_die "run --cluster-id $cid failed: $(cat "$E2E_SCOPE/run.err")"
[ "$(cat "$E2E_SCOPE/run-ns")" = "net:[$holder_ino]" ] ||
  e2e_die "run --cluster-id $cid ran in $(cat "$E2E_SCOPE/run-ns"), not in the holder's net:[$holder_ino]"
rc=0
plug netns-exec doctor --cluster-id "$cid" --config "$cfg" >"$E2E_SCOPE/doctor" 2>&1 || rc=$?
cat "$E2E_SCOPE/doctor"
[ "$rc" -eq 0 ] || e2e_die "doctor --cluster-id $cid exited $rc (want 0: every check of the holder's namespace passes)"
grep -E "^PASS +connect to $mon_ip:" "$E2E_SCOPE/doctor" >/dev/null ||
  e2e_die "doctor did not connect to the monitor from the holder's namespace"
! grep 'holder configured' "$E2E_SCOPE/doctor" >/dev/null || e2e_die "doctor looked for a netNamespaceFilePath"
# The control: a held list naming an ID the config lacks is refused (125) by run as by the shims.
rc=0
e2e_pod_exec "$plugin" "${penv[@]/NETNS_EXEC_HELD_CLUSTERS=$cid/NETNS_EXEC_HELD_CLUSTERS=J-C1}" \
  netns-exec run --cluster-id "$cid" --config "$cfg" -- true 2>"$E2E_SCOPE/typo.err" || rc=$?
[ "$rc" -eq 125 ] || e2e_die "a held list with J-C1 (config: $cid): run exited $rc, want 125"
grep 'did you mean "j-c1"' "$E2E_SCOPE/typo.err" >/dev/null || e2e_die "no did-you-mean: $(cat "$E2E_SCOPE/typo.err")"

e2e_section "plain rbd create/ls/info from the plugin: each one setns into the holder's namespace, then rbd"
plug sh -c 'command -v rbd'
traced create rbd "${rbd_auth[@]}" create --size 64 rbd/$img
entered create /usr/bin/rbd
traced ls rbd "${rbd_auth[@]}" ls rbd | tee "$E2E_SCOPE/ls"
grep -qx "$img" "$E2E_SCOPE/ls" || e2e_die "rbd ls through the shim does not list $img"
entered ls /usr/bin/rbd
traced info rbd "${rbd_auth[@]}" info rbd/$img | tee "$E2E_SCOPE/info"
grep -q 'size 64 MiB' "$E2E_SCOPE/info" || e2e_die "rbd info through the shim does not show the 64 MiB image"
entered info /usr/bin/rbd
traced monhost rbd --mon-host "[v2:$(e2e_cluster_var c1 E2E_CEPH_MONV2),v1:$mon]" --id admin --keyfile "$key" \
  --client-mount-timeout 5 ls rbd | grep -x "$img" >/dev/null || e2e_die "rbd --mon-host with an address vector does not list $img"
entered monhost /usr/bin/rbd

# The control for the traces: the real rbd itself, not through the shim, works from the plugin's
# own storage interface, and its trace has no setns.
traced direct /usr/bin/rbd "${rbd_auth[@]}" ls rbd | grep -x "$img" >/dev/null ||
  e2e_die "/usr/bin/rbd ls directly (no shim) does not list $img from the plugin's own namespace"
untouched direct /usr/bin/rbd

e2e_section "a long-running plain rbd watch: its sessions are in the holder's namespace"
e2e_bg "$E2E_SCOPE" watch "$E2E_SCOPE/watch.log" \
  plug sh -c "echo \$\$ >'$work/watch.pid'; mkfifo /tmp/stdin.\$\$; exec rbd ${rbd_auth[*]} watch rbd/$img <>/tmp/stdin.\$\$"
watch_pid=$(e2e_pid_from_file "$work/watch.pid" 15) || e2e_die "rbd watch did not start: $(cat "$E2E_SCOPE/watch.log")"
e2e_track_pid "$E2E_SCOPE" rbd-watch "$watch_pid"
has_sessions() {
  local json
  json=$("$E2E_EXEC_BIN" inspect --netns "$E2E_HOLDER_DIR/$cid.net.ns" --json) || return 1
  e2e_mon_and_osd_sessions "$json" "$mon_ip"
}
e2e_wait_until 20 "inspect to show the watch's sessions in the holder's namespace" has_sessions ||
  e2e_die "no mon and OSD sessions of the plain rbd watch in the holder's namespace"
[ "$(e2e_ns_id "/proc/$watch_pid/ns/net")" = "$holder_ino" ] ||
  e2e_die "the rbd watch (pid $watch_pid) is not in the holder's namespace"
[ "$(readlink "/proc/$watch_pid/exe")" = /usr/bin/rbd ] ||
  e2e_die "pid $watch_pid is not rbd itself (the shim must exec in place)"
own=$("$E2E_EXEC_BIN" inspect --allow-unrecorded-netns --netns "/run/netns/$E2E_PLUGIN_NS" --json)
n=$(e2e_ceph_session_count "$own" "$mon_ip")
[ "$n" -eq 0 ] || e2e_die "inspect shows $n Ceph sessions in the plugin's own namespace"
kill -TERM "$watch_pid"

e2e_section "plain rbd map: routed, and fails fast (this kernel has no rbd module)"
rc=0
t0=$(date +%s%N)
traced map rbd "${rbd_auth[@]}" map rbd/$img >"$E2E_SCOPE/map.out" 2>&1 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat "$E2E_SCOPE/map.out"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 125 ] || e2e_die "rbd map exited $rc (want the real rbd's failure)"
[ "$ms" -lt 10000 ] || e2e_die "rbd map took ${ms} ms to fail (limit 10 s)"
entered map /usr/bin/rbd

e2e_section "mount -t ceph $mon:/ through mount(8)'s helper: routed (the mount fails: no ceph module)"
plug mkdir -p "$work/mnt"
rc=0
realpath_env=(env "NETNS_EXEC_REAL_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/netns-real")
traced mount "${realpath_env[@]}" mount -t ceph "$mon:/" "$work/mnt" -o "name=admin,secretfile=$key" >"$E2E_SCOPE/mount.out" 2>&1 || rc=$?
cat "$E2E_SCOPE/mount.out"
[ "$rc" -ne 0 ] || { umount "$work/mnt" 2>/dev/null; e2e_die "mount -t ceph succeeded on a kernel without ceph?"; }
grep -q 'execve("/sbin/mount.ceph"' "$work/mount.trace" || e2e_die "mount(8) did not run the shim /sbin/mount.ceph"
entered mount /opt/netns-real/mount.ceph
! mountpoint -q "$work/mnt" || e2e_die "$work/mnt is mounted"

e2e_section "unheld cluster ($other) and no monitors: the real program, untouched"
traced version rbd --version >"$E2E_SCOPE/version" 2>&1
untouched version /usr/bin/rbd
[ "$(cat "$E2E_SCOPE/version")" = "$(plug /usr/bin/rbd --version 2>&1)" ] || e2e_die "rbd --version through the shim differs"
rc=0
traced unheld timeout 30 rbd -m "$mon2" --id admin --keyfile "$E2E_RUN/c2/admin.key" --client-mount-timeout 5 ls rbd \
  >"$E2E_SCOPE/unheld.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || e2e_die "unheld: exit $rc (want 0: the real rbd reaches $other through the plugin's own net2): $(cat "$E2E_SCOPE/unheld.out")"
untouched unheld /usr/bin/rbd

e2e_section "the held cluster's holder is gone: 125, the real rbd never runs"
e2e_holder_stop "$E2E_SCOPE" "$holder" TERM
rc=0
penv+=("NETNS_EXEC_WAIT_HOLDER=1s")
traced gone rbd "${rbd_auth[@]}" ls rbd >"$E2E_SCOPE/gone.out" 2>&1 || rc=$?
cat "$E2E_SCOPE/gone.out"
[ "$rc" -eq 125 ] || e2e_die "held cluster without a holder: exit $rc, want 125"
for needle in "\"$cid\"" "$mon" "$E2E_HOLDER_DIR/$cid.net.ns"; do
  grep -qF "$needle" "$E2E_SCOPE/gone.out" || e2e_die "the refusal does not name $needle"
done
! grep -q 'execve("/usr/bin/rbd"' "$work/gone.trace" || e2e_die "the real rbd ran: $(cat "$work/gone.trace")"
rc=0
traced gone-mount "${realpath_env[@]}" mount -t ceph "$mon:/" "$work/mnt" -o "name=admin,secretfile=$key" >"$E2E_SCOPE/gone-mount.out" 2>&1 || rc=$?
cat "$E2E_SCOPE/gone-mount.out"
! grep -q 'execve("/opt/netns-real/mount.ceph"' "$work/gone-mount.trace" ||
  e2e_die "the real mount.ceph ran without the holder"
grep -q "$cid" "$E2E_SCOPE/gone-mount.out" || e2e_die "mount's failure does not name $cid"
