# shellcheck shell=bash
# i. Holder upgrade in place, no drain. Patching a holder pod's container image makes the kubelet
#    run the preStop hook, stop that container and start one from the new image IN THE SAME POD
#    SANDBOX: the network namespace, with its storage interface, stays. Here the holder container
#    is replaced by one from a second holder image tree (netns-holder-next: another version
#    string) while scenario c's kernel-owned vxlan flow runs in the holder's namespace:
#    0 pings lost; the preStop guard, run as the kubelet would, does not hold (no Ceph session)
#    and its lines are in the holder container's log; new commands go through the new holder;
#    a reader holding the old record is refused; `netns-holder check` passes in the new container.
#    Then the guard's session lines: with a live Ceph session in the namespace, the guard reports
#    it in the holder's log; an in-place replacement announced first (guard
#    --announce-replacement) is let through at once, and the session survives it.
#    Control: the same upgrade done by deleting the holder pod (a new sandbox, what a drain-based
#    upgrade does): the flow dies.
e2e_require_holder
e2e_require_exec run
e2e_require_exec guard
e2e_holder_next_image

cid=i-c1
cfg=$E2E_RUN/csi/i/config.json
conf=$E2E_RUN/c1/ceph.conf
st=$(e2e_cluster_var c1 E2E_CEPH_NETNS)
st_ip=$(e2e_cluster_var c1 E2E_CEPH_IP)
holder=$E2E_ID-i-holder
plugin=$E2E_ID-i-plugin
record=$E2E_HOLDER_DIR/$cid.holder.json
work=$E2E_KUBELET/scn-i
# Fresh each run: an earlier run's files (its watch's pid file) must not be read as this run's.
rm -rf "$work"
mkdir -p "$work"

run() { e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" "$@"; }
reachable() { nsenter --net="/run/netns/$st" -- ping -n -c 2 -i 0.2 -W 1 "$1" >/dev/null 2>&1; }
field() { jq -r ".$1" "$record"; }
sessions_open() { [ "$("$E2E_EXEC_BIN" guard --count --allow-unrecorded-netns --netns "/run/netns/$ns")" -gt 0 ]; }
sessions_closed() { [ "$("$E2E_EXEC_BIN" guard --count --allow-unrecorded-netns --netns "/run/netns/$ns")" = 0 ]; }
# The preStop hook as the holder's manifest has it, plus --holder-record: in the holder's container.
guard() {
  e2e_pod_exec "$1" "$E2E_HOLDER_EXEC" guard --wait-idle --netns /proc/self/ns/net --allow-own-netns \
    --holder-record "$record" "${@:2}"
}

e2e_section "holder pod from image tree 1, plugin pod, vxlan created through the executor"
e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
ns=$E2E_HOLDER_NS
e2e_csi_config "$cfg" "$cid" c1 "$E2E_HOLDER_DIR/$cid.net.ns"
e2e_plugin_start "$E2E_SCOPE" "$plugin"
old_version=$(e2e_pod_exec "$holder" "$E2E_HOLDER_CMD" --version)
old_pid=$(field pid)
old_ino=$(field netns_ino)
cp "$record" "$work/old-record.json"
e2e_log "holder: $old_version, pid $old_pid, net:[$old_ino]"

ip -n "$st" link add ivx-h type vxlan id 4301 remote "$E2E_HOLDER_ADDR" dstport 4789 dev storage0
e2e_track_link "$E2E_SCOPE" "$st" ivx-h
ip -n "$st" addr add 198.19.202.1/24 dev ivx-h
ip -n "$st" link set ivx-h up
run --timeout 10s -- sh -c \
  "ip link add vx0 type vxlan id 4301 remote $st_ip dstport 4789 dev net1 && ip addr add 198.19.202.2/24 dev vx0 && ip link set vx0 up"
e2e_link_in_holder_only vx0
e2e_wait_until 10 "the vxlan peer in the holder to answer" reachable 198.19.202.2 ||
  e2e_die "no answer across the vxlan link created through the executor"

e2e_section "upgrade in place: preStop guard, holder container replaced by image tree 2, same sandbox"
e2e_ping_start "$E2E_SCOPE" ping-upgrade "$st" 198.19.202.2
sleep 1
t0=$SECONDS
rc=0
guard "$holder" --max-wait 30s >"$E2E_SCOPE/guard-upgrade.log" 2>&1 || rc=$?
cat "$E2E_SCOPE/guard-upgrade.log"
[ "$rc" = 0 ] || e2e_die "the preStop guard exited $rc during the in-place upgrade, expected 0"
if grep -q 'holding the stop\|gave up' "$E2E_RUN/pods/$holder/log"; then
  e2e_die "the guard held the upgrade: $(cat "$E2E_RUN/pods/$holder/log")"
fi
e2e_holder_replace "$E2E_SCOPE" "$holder" "$holder-2" "$E2E_HOLDER_NEXT_IMAGE"
sleep 1
ip -n "$ns" link show vx0 >/dev/null || e2e_die "vx0 is gone from the holder's namespace"
e2e_ping_stop "$E2E_SCOPE" ping-upgrade
read -r u_sent u_recv u_lost < <(e2e_ping_stats "$E2E_SCOPE/ping-upgrade.log")
e2e_log "in-place upgrade in $((SECONDS - t0))s; pings sent $u_sent, received $u_recv, lost $u_lost"

e2e_section "the new holder: another binary, a new pid, the same namespace"
new_version=$(e2e_pod_exec "$holder-2" "$E2E_HOLDER_CMD" --version)
new_pid=$(field pid)
new_ino=$(field netns_ino)
e2e_log "holder: $new_version, pid $new_pid, net:[$new_ino]"
[ "$new_version" != "$old_version" ] || e2e_die "the new container runs the same holder version ($new_version)"
[ "$new_pid" != "$old_pid" ] || e2e_die "the record still names pid $old_pid"
[ "$new_pid" = "$(e2e_pod_pid "$holder-2")" ] || e2e_die "the record does not name the new container's holder"
cmp -s "/proc/$new_pid/exe" "$E2E_HOLDER_NEXT_BIN" || e2e_die "pid $new_pid does not run netns-holder-next"
[ "$new_ino" = "$old_ino" ] || e2e_die "the namespace changed: net:[$old_ino] -> net:[$new_ino]"
[ "$(e2e_ns_id "/proc/$new_pid/ns/net")" = "$(e2e_ns_id "/run/netns/$ns")" ] ||
  e2e_die "the new holder is not in the pod's sandbox namespace $ns"
! cmp -s "/proc/$new_pid/exe" "$E2E_HOLDER_BIN" || e2e_die "the two holder builds are the same file"
grep -qF "($new_version)" "$E2E_RUN/pods/$holder-2/log" ||
  e2e_die "the new holder's log does not name its version: $(cat "$E2E_RUN/pods/$holder-2/log")"
e2e_pod_exec "$holder-2" "$E2E_HOLDER_CMD" check --cluster-id "$cid" --dir "$E2E_HOLDER_DIR" ||
  e2e_die "netns-holder check fails in the new holder container"

e2e_section "new commands go through the new holder"
e2e_plugin_exec "$plugin" inspect --cluster-id "$cid" --config "$cfg" --json >"$E2E_SCOPE/inspect.json"
[ "$(jq -r .namespace.holder.pid "$E2E_SCOPE/inspect.json")" = "$new_pid" ] ||
  e2e_die "inspect does not vouch with the new holder: $(jq -c .namespace "$E2E_SCOPE/inspect.json")"
[ "$(jq -r .namespace.holder.alive "$E2E_SCOPE/inspect.json")" = true ] || e2e_die "inspect: the new holder is not alive"
got=$(run --timeout 10s -- stat -L -c %i /proc/self/ns/net)
[ "$got" = "$old_ino" ] || e2e_die "a new command ran in net:[$got], not the holder's net:[$old_ino]"
run --timeout 10s -- ip -br link show vx0 || e2e_die "a new command does not see vx0"
e2e_log "inspect and run use the record of pid $new_pid, in net:[$got], where vx0 lives"

e2e_section "a reader holding the old record is refused"
# A reader that kept the old record: the namespace it opens is the live one (same net:[ino]), the
# record vouches for a holder process that is gone.
stale=$work/stale
mkdir -p "$stale"
chmod 0755 "$work" "$stale"
cp "$work/old-record.json" "$stale/$cid.holder.json"
ln -sfn "/proc/$new_pid/ns/net" "$stale/$cid.net.ns"
rc=0
e2e_plugin_exec "$plugin" run --netns "$stale/$cid.net.ns" --identity require --timeout 10s -- true \
  >"$E2E_SCOPE/stale.out" 2>&1 || rc=$?
cat "$E2E_SCOPE/stale.out"
[ "$rc" = 125 ] || e2e_die "the executor with the old record exited $rc, expected 125"
grep -q "pid $old_pid is gone" "$E2E_SCOPE/stale.out" || e2e_die "the refusal does not say that holder pid $old_pid is gone"
e2e_log "refused with 125: holder pid $old_pid is gone"

e2e_section "the guard's lines are in the holder container's log (kubectl logs)"
e2e_log "old holder container's log (kubectl logs --previous):"
cat "$E2E_RUN/pods/$holder/log"
grep -q "^netns-exec guard: preStop: checking for storage sessions .* before holder pid $old_pid stops" \
  "$E2E_RUN/pods/$holder/log" || e2e_die "the guard's first line is not in the holder's log"
grep -q "^netns-exec guard: no established storage session" "$E2E_RUN/pods/$holder/log" ||
  e2e_die "the guard's result is not in the holder's log"
grep -q "received SIGTERM" "$E2E_RUN/pods/$holder/log" || e2e_die "the old holder did not stop on SIGTERM"

e2e_section "with a live Ceph session the guard holds, and says so in the holder's log"
run --timeout 30s -- rbd -c "$conf" --client-mount-timeout 5 create --size 64 rbd/i-img-$E2E_TAG
e2e_bg "$E2E_SCOPE" watch-exec "$E2E_SCOPE/watch.log" \
  run --timeout 90s -- sh -c "echo \$\$ >'$work/watch.pid'; mkfifo /tmp/stdin.\$\$; exec rbd -c '$conf' --client-mount-timeout 5 watch rbd/i-img-$E2E_TAG <>/tmp/stdin.\$\$"
watch_pid=$(e2e_pid_from_file "$work/watch.pid" 15) || e2e_die "rbd watch did not start: $(cat "$E2E_SCOPE/watch.log")"
e2e_track_pid "$E2E_SCOPE" rbd-watch "$watch_pid"
e2e_wait_until 15 "the watch's mon session" sessions_open || e2e_die "no Ceph session in the holder's namespace"
rc=0
guard "$holder-2" --max-wait 3s --log-interval 1s >"$E2E_SCOPE/guard-busy.log" 2>&1 || rc=$?
cat "$E2E_SCOPE/guard-busy.log"
[ "$rc" = 124 ] || e2e_die "the guard exited $rc with a live session and --max-wait 3s, expected 124"
grep -q "^netns-exec guard: holding the stop: .*$st_ip" "$E2E_RUN/pods/$holder-2/log" ||
  e2e_die "the guard's session line (naming $st_ip) is not in the holder's log"
grep -q "^netns-exec guard: gave up after" "$E2E_RUN/pods/$holder-2/log" ||
  e2e_die "the guard's give-up line is not in the holder's log"

e2e_section "an announced in-place replacement under a live Ceph session: the guard lets it through"
e2e_pod_exec "$holder-2" "$E2E_HOLDER_EXEC" guard --announce-replacement 2m --netns /proc/self/ns/net \
  --allow-own-netns --holder-record "$record"
t0=$SECONDS
rc=0
guard "$holder-2" --max-wait 30s >"$E2E_SCOPE/guard-announced.log" 2>&1 || rc=$?
cat "$E2E_SCOPE/guard-announced.log"
[ "$rc" = 0 ] || e2e_die "the guard exited $rc after the announcement, expected 0"
[ $((SECONDS - t0)) -lt 10 ] || e2e_die "the guard held an announced replacement for $((SECONDS - t0))s"
[ ! -e "${record%.holder.json}.replacing" ] || e2e_die "the guard left the used notice behind"
e2e_holder_replace "$E2E_SCOPE" "$holder-2" "$holder-3" "$E2E_HOLDER_IMAGE"
sessions_open || e2e_die "the rbd watch's Ceph sessions did not survive the in-place replacement"
e2e_log "the rbd watch's sessions survived the replacement: $("$E2E_EXEC_BIN" guard --count --allow-unrecorded-netns --netns "/run/netns/$ns") established"
e2e_log "holder container 2's log:"
cat "$E2E_RUN/pods/$holder-2/log"
grep -q "^netns-exec guard: in-place replacement announced for holder pid $new_pid: its preStop guard" "$E2E_RUN/pods/$holder-2/log" ||
  e2e_die "the announcement is not in the holder's log"
grep -q "^netns-exec guard: in-place replacement announced for holder pid $new_pid: not holding; [1-9][0-9]* established" \
  "$E2E_RUN/pods/$holder-2/log" || e2e_die "the guard's let-through line is not in the holder's log"
kill -TERM "$watch_pid"
e2e_wait_until 15 "the watch's sessions to close" sessions_closed || e2e_die "the watch's session did not close"

e2e_section "control: the same upgrade by deleting the holder pod (new sandbox)"
reachable 198.19.202.2 || e2e_die "control: the flow is already dead before the pod deletion"
e2e_ping_start "$E2E_SCOPE" ping-control "$st" 198.19.202.2
sleep 1
e2e_holder_stop "$E2E_SCOPE" "$holder-3" TERM
e2e_holder_start "$E2E_SCOPE" "$holder-4" "$cid" c1
sleep 1
c_dead=no
reachable 198.19.202.2 || c_dead=yes
e2e_ping_stop "$E2E_SCOPE" ping-control
read -r c_sent c_recv c_lost < <(e2e_ping_stats "$E2E_SCOPE/ping-control.log")
e2e_holder_stop "$E2E_SCOPE" "$holder-4" TERM

e2e_section "scenario i figures"
e2e_figure upgrade.holder "holder container replaced in its pod ($old_version -> $new_version, pid $old_pid -> $new_pid, net:[$new_ino] kept), pings sent $u_sent, received $u_recv, LOST $u_lost"
e2e_figure upgrade.control "holder pod deleted and recreated (new sandbox), pings sent $c_sent, received $c_recv, LOST $c_lost (flow dead afterwards: $c_dead)"
[ "$u_sent" -gt 0 ] || e2e_die "the upgrade run sent no pings"
[ "$u_lost" -eq 0 ] || e2e_die "the flow in the holder's namespace lost $u_lost pings over the in-place upgrade"
[ "$c_dead" = yes ] || e2e_die "control: the flow survived deleting the holder pod; the control proves nothing"
[ "$c_lost" -gt 0 ] || e2e_die "control: no pings lost, the control proves nothing"
