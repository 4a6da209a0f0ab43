# shellcheck shell=bash
# b. While a long-running Ceph client runs through the executor, `netns-exec inspect` shows its
#    sessions to the monitor and the OSD in the holder's namespace, and none in the plugin's
#    (which has its own storage interface, as in the field), and Ceph sees the watch coming from
#    the holder's storage address. Control: the same watch started without the executor has its
#    sessions in the plugin's namespace and Ceph sees the plugin's address, so both checks tell
#    the two namespaces apart.
e2e_require_holder
e2e_require_exec run
e2e_require_exec inspect

cid=b-c1
cfg=$E2E_RUN/csi/b/config.json
conf=$E2E_RUN/c1/ceph.conf
mon_ip=$(e2e_cluster_var c1 E2E_CEPH_IP)
holder=$E2E_ID-b-holder
plugin=$E2E_ID-b-plugin
work=$E2E_KUBELET/scn-b
# Fresh each run: an earlier run's files (its watch's pid file) must not be read as this run's.
rm -rf "$work"
mkdir -p "$work"

e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
e2e_csi_config "$cfg" "$cid" c1 "$E2E_HOLDER_DIR/$cid.net.ns"
e2e_plugin_start "$E2E_SCOPE" "$plugin"
e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --timeout 60s -- \
  rbd -c "$conf" --client-mount-timeout 5 create --size 64 rbd/b-img-$E2E_TAG

e2e_section "a long-running client through the executor: rbd watch (sessions to the mon and the OSD)"
# The plugin is hostPID, so the pid it writes is a host pid: the scenario ends the client by PID.
e2e_bg "$E2E_SCOPE" watch-exec "$E2E_SCOPE/watch.log" \
  e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --timeout 90s -- \
  sh -c "echo \$\$ >'$work/watch.pid'; mkfifo /tmp/stdin.\$\$; exec rbd -c '$conf' --client-mount-timeout 5 watch rbd/b-img-$E2E_TAG <>/tmp/stdin.\$\$"
watch_pid=$(e2e_pid_from_file "$work/watch.pid" 15) || e2e_die "rbd watch did not start: $(cat "$E2E_SCOPE/watch.log")"
e2e_track_pid "$E2E_SCOPE" rbd-watch "$watch_pid"
[ "$(e2e_ns_id "/proc/$watch_pid/ns/net")" = "$(e2e_ns_id "/run/netns/$E2E_HOLDER_NS")" ] ||
  e2e_die "rbd watch (pid $watch_pid) is not in the holder's network namespace"

has_sessions() {
  local json
  json=$(e2e_plugin_exec "$plugin" inspect --cluster-id "$cid" --config "$cfg" --json) || return 1
  e2e_mon_and_osd_sessions "$json" "$mon_ip"
}
e2e_wait_until 20 "inspect to show sessions to the mon and the OSD" has_sessions || {
  e2e_plugin_exec "$plugin" inspect --cluster-id "$cid" --config "$cfg" --json || true
  e2e_die "netns-exec inspect does not show the watch's sessions to $mon_ip (mon 3300/6789, OSD 6800-7568)"
}

e2e_section "netns-exec inspect --cluster-id $cid (from the plugin pod)"
e2e_plugin_exec "$plugin" inspect --cluster-id "$cid" --config "$cfg"

e2e_section "netns-exec inspect of the plugin's own pod namespace: no Ceph sessions"
plugin_sessions() {
  "$E2E_EXEC_BIN" inspect --allow-unrecorded-netns --netns "/run/netns/$E2E_PLUGIN_NS" --json >"$E2E_SCOPE/own.json" &&
    e2e_ceph_session_count "$(cat "$E2E_SCOPE/own.json")" "$mon_ip"
}
"$E2E_EXEC_BIN" inspect --allow-unrecorded-netns --netns "/run/netns/$E2E_PLUGIN_NS"
n=$(plugin_sessions)
[ "$n" -eq 0 ] || e2e_die "inspect shows $n Ceph sessions in the plugin's own namespace"
e2e_log "holder namespace: sessions to mon and OSD present; plugin namespace: none"

e2e_section "Ceph's view: the watch comes from the holder's address $E2E_HOLDER_ADDR"
e2e_wait_until 10 "Ceph to list the watch" e2e_rbd_watched_from c1 "rbd/b-img-$E2E_TAG" "$E2E_HOLDER_ADDR" ||
  e2e_die "Ceph lists the watchers $(e2e_rbd_watchers c1 "rbd/b-img-$E2E_TAG" | xargs), not the holder's $E2E_HOLDER_ADDR"
! e2e_rbd_watched_from c1 "rbd/b-img-$E2E_TAG" "$E2E_PLUGIN_ADDR" ||
  e2e_die "Ceph lists a watcher at the plugin's own address $E2E_PLUGIN_ADDR"
e2e_log "watchers: $(e2e_rbd_watchers c1 "rbd/b-img-$E2E_TAG" | xargs)"
kill -TERM "$watch_pid"

e2e_section "control: the same watch without the executor, from the plugin's own namespace"
e2e_bg "$E2E_SCOPE" watch-direct "$E2E_SCOPE/direct.log" \
  e2e_pod_exec "$plugin" timeout 90 sh -c "echo \$\$ >'$work/direct.pid'; mkfifo /tmp/stdin.\$\$; exec rbd -c '$conf' --client-mount-timeout 5 watch rbd/b-img-$E2E_TAG <>/tmp/stdin.\$\$"
direct_pid=$(e2e_pid_from_file "$work/direct.pid" 15) || e2e_die "the direct rbd watch did not start: $(cat "$E2E_SCOPE/direct.log")"
e2e_track_pid "$E2E_SCOPE" rbd-watch-direct "$direct_pid"
e2e_wait_until 20 "Ceph to list the direct watch at the plugin's address" \
  e2e_rbd_watched_from c1 "rbd/b-img-$E2E_TAG" "$E2E_PLUGIN_ADDR" ||
  e2e_die "control: Ceph does not list the direct watch at the plugin's $E2E_PLUGIN_ADDR: $(e2e_rbd_watchers c1 "rbd/b-img-$E2E_TAG" | xargs)"
n=$(plugin_sessions)
[ "$n" -ge 1 ] || e2e_die "control: inspect shows no Ceph session of the direct watch in the plugin's namespace"
e2e_log "control: the direct watch has $n sessions in the plugin's namespace, Ceph sees $E2E_PLUGIN_ADDR"
kill -TERM "$direct_pid"
