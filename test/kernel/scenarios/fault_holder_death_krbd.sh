# shellcheck shell=bash
# The holder dies (SIGKILL, as an OOM kill ends it) while krbd maps an image through it
# (guest/faults.sh): `netns-exec map` from the plugin's pod, ext4, the workload writing through 3
# plugin restarts; then the holder process killed by its PID. Its pod sandbox stays, as the
# kubelet keeps a sandbox whose container was OOM-killed: the namespace, its net1 and the kernel's
# sessions in it live on. While no holder runs (KTEST_HOLDER_DEAD_S, the kubelet's back-off), the
# writes must go on; `netns-exec inspect` and `doctor` are asked what they make of the mapping and
# their answers are logged and counted. Then a new holder in the same namespace (the container
# restarted) publishes its record: the same namespace, a new pid; inspect's node_mappings must say
# the new holder serves the device and doctor must have no FAIL for it. Finally `netns-exec unmap`
# through the new holder and the image read back from Ceph's side.
# figure: kernel.fault.holder_death.krbd.holder
# shellcheck source=../guest/faults.sh
. "$KTEST_SRC/guest/faults.sh"
# The gap between the kill and the new holder: the kubelet's first restart back-off is 10 s.
KTEST_HOLDER_DEAD_S=10
ktest_holder_start
ktest_plugin_start plugin
img=kd-$KTEST_TAG
ktest_rbd_create "$KTEST_PLUGIN_NS" "$img"
ktest_at_cleanup ktest_unmap_image_force "$img"
dev=$(ktest_map "$KTEST_PLUGIN_NS" "$img")
e2e_log "netns-exec map gave $dev"
ktest_ext4_mount "$dev" /mnt/hd
KTEST_FAULT_WORKLOAD=hd
ktest_workload_start hd /mnt/hd/data
ktest_restarts hd "$KTEST_FAULT_RESTARTS"

record=$KTEST_HOLDER_DIR/$KTEST_CID.holder.json
jq -Mc . "$record"
old_ino=$(stat -L -c %i "$KTEST_HOLDER_DIR/$KTEST_CID.net.ns")
holder_pid=$(e2e_tracked_pid "$KTEST_SCOPE" holder)
kill -KILL "$holder_pid"
e2e_wait_until 10 "the holder $holder_pid to exit" eval '! e2e_tracked_pid "$KTEST_SCOPE" holder >/dev/null' ||
  e2e_die "the holder $holder_pid did not exit after SIGKILL"
t_kill=$SECONDS
e2e_log "holder $holder_pid killed (SIGKILL); its namespace $KTEST_HOLDER_NS stays ($(ss -N "$KTEST_HOLDER_NS" -Htn state established | wc -l) established sessions)"

# hd_ask WHEN — inspect --json (node_mappings) and doctor, their exit codes and what they say
# about the device, into KTEST_W/WHEN.*; sets hd_inspect_rc, hd_doctor_rc, hd_orphaned (yes|no:
# node_mappings flags the device), hd_served (who serves it, per inspect) and hd_doctor_line.
hd_ask() {
  hd_inspect_rc=0 hd_doctor_rc=0
  "$KTEST_EXEC_BIN" inspect --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" --json \
    --holder-dir "$KTEST_HOLDER_DIR" >"$KTEST_W/$1.inspect.json" 2>"$KTEST_W/$1.inspect.err" || hd_inspect_rc=$?
  echo "----- inspect --json ($1): exit $hd_inspect_rc -----"
  cat "$KTEST_W/$1.inspect.err"
  if [ "$hd_inspect_rc" -ne 0 ]; then
    # Refused for the cluster (no live holder): the node's mappings as inspect judges them from
    # the node's own namespace.
    "$KTEST_EXEC_BIN" inspect --netns /proc/1/ns/net --allow-own-netns --allow-host-netns --identity off --json \
      --holder-dir "$KTEST_HOLDER_DIR" >"$KTEST_W/$1.inspect.json" ||
      e2e_die "inspect --netns /proc/1/ns/net --json failed (exit $?)"
  fi
  hd_orphaned=- hd_served=-
  if [ -s "$KTEST_W/$1.inspect.json" ]; then
    jq -Mc .node_mappings "$KTEST_W/$1.inspect.json"
    hd_orphaned=$(jq -r --arg dev "$dev" '[.node_mappings.mappings[] | select(.object == $dev) | .orphaned] | if length == 0 then "-" elif .[0] then "yes" else "no" end' "$KTEST_W/$1.inspect.json")
    hd_served=$(jq -r --arg dev "$dev" '[.node_mappings.mappings[] | select(.object == $dev) | .served_by // "-"] | .[0] // "-"' "$KTEST_W/$1.inspect.json")
  fi
  "$KTEST_EXEC_BIN" doctor --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" \
    --holder-dir "$KTEST_HOLDER_DIR" >"$KTEST_W/$1.doctor.txt" 2>&1 || hd_doctor_rc=$?
  echo "----- doctor ($1): exit $hd_doctor_rc -----"
  cat "$KTEST_W/$1.doctor.txt"
  hd_doctor_line=$(grep -m 1 -F "$dev" "$KTEST_W/$1.doctor.txt" || [ $? -eq 1 ])
  e2e_log "$1: inspect exit $hd_inspect_rc (device orphaned $hd_orphaned, served by $hd_served), doctor exit $hd_doctor_rc, its line for $dev: ${hd_doctor_line:-none}"
}
hd_ask dead
dead_inspect_rc=$hd_inspect_rc dead_doctor_rc=$hd_doctor_rc dead_orphaned=$hd_orphaned
case $hd_doctor_line in *FAIL*) dead_doctor=fail ;; *PASS* | *ok*) dead_doctor=pass ;; *) dead_doctor=none ;; esac
# Writes go on without a holder process: the kernel's sessions need none.
ktest_wait_writes hd 3 30 || e2e_die "writes stalled with the holder dead ($(ktest_writes hd) writes)"
while [ $((SECONDS - t_kill)) -lt "$KTEST_HOLDER_DEAD_S" ]; do sleep 1; done
writes_dead=$(ktest_writes hd)

# The container restarted in the same sandbox: a new holder in the same namespace.
e2e_spawn "$KTEST_SCOPE" holder-new "$KTEST_HOLDER_NS" "$KTEST_W/holder-new.log" \
  "$KTEST_HOLDER_BIN" --cluster-id "$KTEST_CID" --dir "$KTEST_HOLDER_DIR"
new_pid=$(e2e_tracked_pid "$KTEST_SCOPE" holder-new)
hd_record_is_new() { [ "$(jq -r .pid "$record" 2>/dev/null)" = "$new_pid" ]; }
e2e_wait_until 20 "the new holder to publish its record" hd_record_is_new ||
  e2e_die "the new holder did not publish: $(cat "$KTEST_W/holder-new.log")"
jq -Mc . "$record"
new_ino=$(stat -L -c %i "$KTEST_HOLDER_DIR/$KTEST_CID.net.ns")
[ "$new_ino" = "$old_ino" ] || e2e_die "the new holder published namespace $new_ino, not the sandbox's $old_ino"
e2e_log "new holder $new_pid published after $((SECONDS - t_kill))s without one: the same namespace (inode $new_ino)"
hd_ask new
[ "$hd_orphaned" = no ] || e2e_die "with the new holder up, inspect's node_mappings says orphaned '$hd_orphaned' for $dev"
case $hd_served in *holder*) ;; *) e2e_die "with the new holder up, $dev is not said to be served by it: '$hd_served'" ;; esac
case $hd_doctor_line in *FAIL*) e2e_die "with the new holder up, doctor fails $dev: $hd_doctor_line" ;; esac

ktest_wait_writes hd 3 30 || e2e_die "writes stalled after the new holder started"
ktest_workload_stop hd
[ "$KTEST_W_VERIFIED" = yes ] || e2e_die "the data read back does not match what was written"
umount /mnt/hd
ktest_exec "$KTEST_PLUGIN_NS" unmap --cluster-id "$KTEST_CID" --config "$KTEST_CONFIG" "$dev"
[ ! -e "$dev" ] || e2e_die "$dev still exists after netns-exec unmap through the new holder"
ktest_expect_rbd_ext4 kernel.fault.holder_death.krbd.holder "$img" /data
resumed=no
[ "$writes_dead" -gt 0 ] && [ "$KTEST_W_WRITES" -gt "$writes_dead" ] && resumed=yes
echo "FIGURE kernel.fault.holder_death.krbd.holder: writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, resumed $resumed, max_stall_ms $KTEST_W_STALL, dead_s $KTEST_HOLDER_DEAD_S, dead_inspect_exit $dead_inspect_rc, dead_orphaned $dead_orphaned, dead_doctor_exit $dead_doctor_rc, dead_doctor $dead_doctor"
