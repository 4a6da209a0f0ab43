# shellcheck shell=bash
# h. Socket mode: the holder runs in its own pid namespace with --socket, the plugin without
#    hostPID gets the namespace from the holder's socket, and scenario a's commands run there:
#    the plugin has its own storage interface, so the proof is where they run (the namespace
#    they see, the address Ceph sees a watch come from), not that they work. The same plugin is
#    refused a symlink-mode holder's link (it names a pid of another pid namespace).
e2e_require_holder
e2e_require_exec run

cid=h-c1
conf=$E2E_RUN/c1/ceph.conf
holder=$E2E_ID-h-holder
plugin=$E2E_ID-h-plugin
sock=$E2E_HOLDER_DIR/$cid.net.sock

e2e_section "holder pod for $cid with --socket, in its own pid namespace (no hostPID)"
e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1 --socket
ls -l "$E2E_HOLDER_DIR/$cid".*
holder_ns=$(e2e_ns_id "/run/netns/$E2E_HOLDER_NS")

e2e_section "plugin pod without hostPID"
e2e_plugin_start "$E2E_SCOPE" "$plugin" --own-pid
e2e_pod_exec "$plugin" sh -c 'echo "plugin sees $(ls /proc | grep -c "^[0-9]") processes (its own pid namespace)"'

run() { e2e_plugin_exec "$plugin" run --socket "$sock" --timeout 60s -- "$@"; }

e2e_section "scenario a through the socket"
got=$(run stat -L -c %i /proc/self/ns/net)
[ "$got" = "$holder_ns" ] || e2e_die "the command ran in namespace $got, not the holder's $holder_ns"
run ceph -c "$conf" --connect-timeout 5 -s
run rbd -c "$conf" --client-mount-timeout 5 create --size 64 rbd/h-img-$E2E_TAG
run rbd -c "$conf" --client-mount-timeout 5 ls rbd | grep -x h-img-$E2E_TAG >/dev/null || e2e_die "rbd ls through the socket does not list h-img-$E2E_TAG"
run rbd -c "$conf" --client-mount-timeout 5 info rbd/h-img-$E2E_TAG | grep 'size 64 MiB' >/dev/null ||
  e2e_die "rbd info through the socket does not show the 64 MiB image"

e2e_section "ceph-csi's config and nsenter call naming the socket (netNamespaceFilePath = $cid.net.sock)"
got=$(e2e_plugin_exec "$plugin" run --netns "$sock" --timeout 60s -- stat -L -c %i /proc/self/ns/net)
[ "$got" = "$holder_ns" ] || e2e_die "run --netns SOCKET ran in namespace $got, not the holder's $holder_ns"
got=$(e2e_pod_exec "$plugin" nsenter --net="$sock" -- stat -L -c %i /proc/self/ns/net)
[ "$got" = "$holder_ns" ] || e2e_die "nsenter --net=SOCKET ran in namespace $got, not the holder's $holder_ns"
cfg=$E2E_RUN/csi/h/config.json
e2e_csi_config "$cfg" "$cid" c1 "$sock"
got=$(e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --timeout 60s -- stat -L -c %i /proc/self/ns/net)
[ "$got" = "$holder_ns" ] || e2e_die "run --cluster-id (config naming the socket) ran in namespace $got, not the holder's $holder_ns"

e2e_section "Ceph's view: a watch through the socket comes from the holder's address $E2E_HOLDER_ADDR"
# The plugin has its own pid namespace: the watch's pid (written by its shell) is one of that
# namespace, and the scenario ends it from inside the pod.
work=$E2E_KUBELET/scn-h
rm -rf "$work"
mkdir -p "$work"
e2e_bg "$E2E_SCOPE" watch-exec "$E2E_SCOPE/watch.log" \
  run sh -c "echo \$\$ >'$work/watch.pid'; mkfifo /tmp/stdin.\$\$; exec rbd -c '$conf' --client-mount-timeout 5 watch rbd/h-img-$E2E_TAG <>/tmp/stdin.\$\$"
watch_pid=$(e2e_pid_from_file "$work/watch.pid" 15) || e2e_die "rbd watch did not start: $(cat "$E2E_SCOPE/watch.log")"
e2e_wait_until 20 "Ceph to list the watch at $E2E_HOLDER_ADDR" e2e_rbd_watched_from c1 "rbd/h-img-$E2E_TAG" "$E2E_HOLDER_ADDR" ||
  e2e_die "Ceph lists the watchers $(e2e_rbd_watchers c1 "rbd/h-img-$E2E_TAG" | xargs), not the holder's $E2E_HOLDER_ADDR"
! e2e_rbd_watched_from c1 "rbd/h-img-$E2E_TAG" "$E2E_PLUGIN_ADDR" ||
  e2e_die "Ceph lists a watcher at the plugin's own address $E2E_PLUGIN_ADDR"
e2e_log "watchers: $(e2e_rbd_watchers c1 "rbd/h-img-$E2E_TAG" | xargs) (holder $E2E_HOLDER_ADDR, plugin $E2E_PLUGIN_ADDR)"
e2e_pod_exec "$plugin" kill -TERM "$watch_pid"

e2e_section "never the wrong namespace: a symlink-mode link is refused from another pid namespace"
# A hostPID holder's <ID>.net.ns names /proc/<host pid>/ns/net; in the plugin's own pid namespace
# that path means another process or nothing. The executor must refuse it (exit 125), not run there.
e2e_holder_start "$E2E_SCOPE" "$E2E_ID-h-holder2" h2-c1 c1
rc=0
e2e_plugin_exec "$plugin" run --netns "$E2E_HOLDER_DIR/h2-c1.net.ns" --timeout 10s -- true \
  >"$E2E_SCOPE/wrong.out" 2>&1 || rc=$?
cat "$E2E_SCOPE/wrong.out"
[ "$rc" -eq 125 ] || e2e_die "a symlink-mode link used from another pid namespace: exit $rc, expected 125"
grep -q "another pid namespace" "$E2E_SCOPE/wrong.out" && grep -q "hostPID: true" "$E2E_SCOPE/wrong.out" &&
  grep -q -- "--socket" "$E2E_SCOPE/wrong.out" ||
  e2e_die "the refusal does not say the holder runs in another pid namespace (with the hostPID/--socket hint)"
