# shellcheck shell=bash
# e. Holder restart: the holder pod and its namespace are replaced. Until the new holder
#    publishes, the executor refuses the stale link (exit 125, naming the cluster and the cause);
#    afterwards it works, in the new namespace.
#    Holder deletion under a live session: the guard (the holder pod's preStop) holds, reporting
#    the session, and returns once the session ends. A request made while no holder is published
#    waits (--wait-holder) and runs in the holder that publishes next.
e2e_require_holder
e2e_require_exec run
e2e_require_exec guard

cid=e-c1
cfg=$E2E_RUN/csi/e/config.json
conf=$E2E_RUN/c1/ceph.conf
mon_ip=$(e2e_cluster_var c1 E2E_CEPH_IP)
holder=$E2E_ID-e-holder
plugin=$E2E_ID-e-plugin
link=$E2E_HOLDER_DIR/$cid.net.ns
work=$E2E_KUBELET/scn-e
# Fresh each run: an earlier run's files (its watch's pid file) must not be read as this run's.
rm -rf "$work"
mkdir -p "$work"

run() { e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" "$@"; }
netns_of_command() { run --timeout 10s -- stat -L -c %i /proc/self/ns/net; }

e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
old_ns=$(e2e_ns_id "/run/netns/$E2E_HOLDER_NS")
old_addr=$E2E_HOLDER_ADDR
e2e_csi_config "$cfg" "$cid" c1 "$link"
e2e_plugin_start "$E2E_SCOPE" "$plugin"
[ "$(netns_of_command)" = "$old_ns" ] || e2e_die "the executor did not run in the first holder's namespace"

e2e_section "holder restart: the holder crashes (SIGKILL), its pod namespace is replaced"
e2e_holder_stop "$E2E_SCOPE" "$holder" KILL
ls -l "$E2E_HOLDER_DIR/$cid".* || true
e2e_log "the published files are stale now: the holder could not remove them"

rc=0
run --timeout 10s -- true >"$E2E_SCOPE/stale.out" 2>&1 || rc=$?
cat "$E2E_SCOPE/stale.out"
[ "$rc" -eq 125 ] || e2e_die "the executor on a stale holder link exited $rc, expected 125"
grep -q -- "$cid" "$E2E_SCOPE/stale.out" || e2e_die "the refusal does not name the cluster $cid"
e2e_log "refused with 125, naming $cid"

e2e_section "the new holder publishes; the executor works in the new namespace"
e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
new_ns=$(e2e_ns_id "/run/netns/$E2E_HOLDER_NS")
got=$(netns_of_command)
[ "$got" = "$new_ns" ] || e2e_die "the executor ran in namespace $got, not the new holder's $new_ns"
# The kernel may give the new namespace the old one's inode number; its interfaces tell them apart.
run --timeout 10s -- ip -o -4 addr show net1 | grep "$E2E_HOLDER_ADDR/" >/dev/null ||
  e2e_die "a command run through the executor does not see the new holder's net1 ($E2E_HOLDER_ADDR)"
run --timeout 30s -- ceph -c "$conf" --connect-timeout 5 health
e2e_log "the executor runs in the new holder's namespace (net1 $E2E_HOLDER_ADDR; the old one had $old_addr)"

e2e_section "holder deletion under a live session: the preStop guard waits"
run --timeout 30s -- rbd -c "$conf" --client-mount-timeout 5 create --size 64 rbd/e-img-$E2E_TAG
e2e_bg "$E2E_SCOPE" watch-exec "$E2E_SCOPE/watch.log" \
  run --timeout 90s -- sh -c "echo \$\$ >'$work/watch.pid'; mkfifo /tmp/stdin.\$\$; exec rbd -c '$conf' --client-mount-timeout 5 watch rbd/e-img-$E2E_TAG <>/tmp/stdin.\$\$"
watch_pid=$(e2e_pid_from_file "$work/watch.pid" 15) || e2e_die "rbd watch did not start: $(cat "$E2E_SCOPE/watch.log")"
e2e_track_pid "$E2E_SCOPE" rbd-watch "$watch_pid"

# The guard starts only once the watch's sessions exist (as scenario b waits for them): started
# earlier, an idle namespace would let it return at once, and the check below would race.
has_sessions() {
  local json
  json=$(e2e_plugin_exec "$plugin" inspect --cluster-id "$cid" --config "$cfg" --json) || return 1
  e2e_mon_and_osd_sessions "$json" "$mon_ip"
}
e2e_wait_until 20 "inspect to show the watch's sessions to the mon and the OSD" has_sessions ||
  e2e_die "the rbd watch has no sessions to $mon_ip (mon 3300/6789, OSD 6800-7568)"

# The preStop hook as the holder's manifest has it: in the holder's container, on its own namespace.
e2e_bg "$E2E_SCOPE" guard "$E2E_SCOPE/guard.log" \
  e2e_pod_exec "$holder" "$E2E_HOLDER_EXEC" guard --wait-idle --netns /proc/self/ns/net --allow-own-netns \
  --max-wait 60s --log-interval 1s
# The guard's own report of the live session is the event to wait for (no fixed sleep).
e2e_wait_until 20 "the guard to report the session to $mon_ip" grep -q "$mon_ip" "$E2E_SCOPE/guard.log" ||
  e2e_die "the guard does not report the session to $mon_ip: $(cat "$E2E_SCOPE/guard.log")"
e2e_pid_gone "$E2E_SCOPE" guard &&
  e2e_die "the guard returned while a session was live: $(cat "$E2E_SCOPE/guard.log")"
cat "$E2E_SCOPE/guard.log"
e2e_log "the guard holds and reports the live session"

e2e_section "the session ends: the guard returns"
kill -TERM "$watch_pid"
e2e_wait_until 30 "the guard to return" e2e_pid_gone "$E2E_SCOPE" guard ||
  e2e_die "the guard still waits 30 s after the session ended"
cat "$E2E_SCOPE/guard.log"
[ "$(cat "$E2E_SCOPE/guard.log.rc")" = 0 ] || e2e_die "the guard exited $(cat "$E2E_SCOPE/guard.log.rc") once idle, expected 0"
e2e_holder_stop "$E2E_SCOPE" "$holder" TERM
[ ! -e "$link" ] || e2e_die "the holder left $link behind after SIGTERM"
e2e_log "guard returned 0; the deleted holder removed its files"

e2e_section "a plugin request while no holder is published waits for the next one (--wait-holder)"
e2e_bg "$E2E_SCOPE" waiter "$E2E_SCOPE/waiter.log" \
  run --wait-holder 30s --timeout 10s -- sh -c 'stat -L -c %i /proc/self/ns/net; ip -o -4 addr show net1'
sleep 1
e2e_pid_gone "$E2E_SCOPE" waiter && e2e_die "the request did not wait for a holder: $(cat "$E2E_SCOPE/waiter.log")"
e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
e2e_wait_until 15 "the waiting request to finish" e2e_pid_gone "$E2E_SCOPE" waiter ||
  e2e_die "the waiting request still waits after the holder published"
cat "$E2E_SCOPE/waiter.log"
[ "$(cat "$E2E_SCOPE/waiter.log.rc")" = 0 ] || e2e_die "the waiting request failed"
grep -q "$E2E_HOLDER_ADDR/" "$E2E_SCOPE/waiter.log" ||
  e2e_die "the waiting request did not run in the holder that published ($E2E_HOLDER_ADDR)"
e2e_log "the request waited, then ran in the newly published holder's namespace"
