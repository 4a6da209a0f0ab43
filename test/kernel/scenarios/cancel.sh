# shellcheck shell=bash
# Cancellation on the real kernel clients: 20 krbd maps and CephFS mounts (and the unmaps and
# umounts after them) through the holder, each cancelled at its own point, by the three callers
# a plugin can be — a Go context (tools/cancel_go, the package netnsexec), the C ABI's cancel
# handle (tools/cancel_c.c), and the CLI's --timeout or a SIGTERM — at once (before the call), a
# few ms into the call, as its command starts or some 100 ms later (the tools watch for their
# child process, the CLI's timeout counts from the command's start: mid-command however fast the
# emulated VM runs), and after the map or mount completed (its unmap or umount cancelled), with
# the cancel grace of 30 s (the command finishes, then is undone) or 0 (SIGTERM mid-command). Each cancel's reported outcome is counted; after each one, none of the
# scenario's images is mapped and nothing is mounted at its mount points. Then, on the node: no
# rbd device and no ceph mount more than before; on the cluster: no blocklist entry for the
# holder's address and no watcher on any of the images; and a later map, write, read back and
# unmap, and a mount, write and umount, work.
# figure: kernel.cancel
[ -x "${KTEST_CANCEL_GO_BIN:-}" ] || e2e_die "no Go cancel caller (KTEST_CANCEL_GO_BIN='${KTEST_CANCEL_GO_BIN:-}'): build the target kernel_cancel_go_tool (Go 1.22 or newer, test/abi/find_go.sh)"
[ -x "${KTEST_CANCEL_C_BIN:-}" ] || e2e_die "no C cancel caller (KTEST_CANCEL_C_BIN='${KTEST_CANCEL_C_BIN:-}'): build the target kernel_cancel_c"
ktest_holder_start
ktest_plugin_start plugin
kc_ns=$KTEST_PLUGIN_NS
kc_prefix=kc-$KTEST_TAG
kc_images=("$kc_prefix-go" "$kc_prefix-c" "$kc_prefix-cli")
kc_log=$KTEST_W/cancel.log
: >"$kc_log"

# The scenario's devices (by image, from sysfs) and ceph mounts (by mount point).
kc_devices() {
  local d
  for d in /sys/bus/rbd/devices/*; do
    [ -e "$d/name" ] || continue
    case "$(cat "$d/pool")/$(cat "$d/name")" in
      "rbd/$kc_prefix"-*) echo "/dev/rbd${d##*/}" ;;
    esac
  done
}
kc_mounts() { awk -v p="/mnt/$kc_prefix-" 'index($2, p) == 1 { print $2 }' /proc/mounts; }
kc_cleanup() {
  local m d
  for m in $(kc_mounts); do ktest_bounded 30 "umount $m" umount "$m"; done
  # (noudev, as every unmap here: no udev runs in the guest, and rbd would wait for its event.)
  for d in $(kc_devices); do ktest_bounded 30 "rbd unmap -o force,noudev $d" rbd unmap -o force,noudev "$d"; done
}
ktest_at_cleanup kc_cleanup

devices_before=$(find /sys/bus/rbd/devices -mindepth 1 -maxdepth 1 | wc -l)
ceph_mounts_before=$(awk '$3 == "ceph"' /proc/mounts | wc -l)
kmsg_before=$(dmesg | wc -l)
for img in "${kc_images[@]}"; do ktest_rbd_create "$kc_ns" "$img"; done
for i in $(seq 1 20); do mkdir -p "/mnt/$kc_prefix-$i"; done

declare -A kc_count=()
kc_cancels=0 kc_leftover_devices=0 kc_leftover_mounts=0
# kc_record CASE STATE — one cancel's outcome, and what it left: a state other than the five a
# cancel reports, "left_behind", or a device or mount of the scenario afterwards fails it (after
# all the cases: the figure says how many).
kc_record() {
  local case=$1 state=$2 devs mounts
  case $state in
    not_started | undone | nothing_left | completed | left_behind) ;;
    *) e2e_die "case $case: the cancel was reported as '$state' (see $kc_log)" ;;
  esac
  kc_cancels=$((kc_cancels + 1))
  kc_count[$state]=$((${kc_count[$state]:-0} + 1))
  devs=$(kc_devices | wc -l)
  mounts=$(kc_mounts | wc -l)
  kc_leftover_devices=$((kc_leftover_devices + devs))
  kc_leftover_mounts=$((kc_leftover_mounts + mounts))
  e2e_log "cancel $kc_cancels ($case): $state; the scenario's devices now $devs, mounts $mounts"
  if [ "$devs" -ne 0 ] || [ "$mounts" -ne 0 ]; then
    e2e_log "case $case left $(kc_devices) $(kc_mounts); removed so the next case starts clean"
    kc_cleanup
  fi
}

# kc_tool go|c DELAY_MS GRACE_MS OP ARGS... — the Go or C caller from the plugin's namespace;
# prints its CANCEL line (logged with its stderr).
kc_tool() {
  local bin out
  case $1 in go) bin=$KTEST_CANCEL_GO_BIN ;; c) bin=$KTEST_CANCEL_C_BIN ;; esac
  out=$(nsenter --net="/run/netns/$kc_ns" -- "$bin" "$KTEST_CID" "$KTEST_CONFIG" "${@:2}" 2>>"$kc_log") ||
    e2e_die "$1 caller ${*:2} failed: $(tail -n 5 "$kc_log")"
  echo "$out" >>"$kc_log"
  echo "$out"
}
kc_field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

# kc_caller CASE go|c DELAY_MS GRACE_MS map IMAGE | mount N
kc_caller() {
  local case=$1 who=$2 delay=$3 grace=$4 op=$5 line state device
  case $op in
    map) line=$(kc_tool "$who" "$delay" "$grace" map rbd "$6" "$KTEST_CEPH_MON" "$KTEST_KEYFILE") ;;
    mount) line=$(kc_tool "$who" "$delay" "$grace" mount "/mnt/$kc_prefix-$6" "$KTEST_CEPH_MON" "$KTEST_KEYFILE") ;;
  esac
  state=$(kc_field state "$line")
  device=$(kc_field device "$line")
  # Go: a cancel is an error that wraps context.Canceled; C: the outcome is CANCELLED (6), or
  # REFUSED (4) before the start.
  if [ "$who" = go ]; then
    [ "$(kc_field error "$line")" = cancelled ] || e2e_die "case $case: Go got no *CancelledError wrapping context.Canceled: $line"
  else
    case "$state/$(kc_field outcome "$line")" in
      not_started/4 | undone/6 | nothing_left/6 | left_behind/6) ;;
      *) e2e_die "case $case: the C result does not say cancelled: $line" ;;
    esac
  fi
  [ "$device" = - ] || e2e_die "case $case: a cancelled map returned the device $device: $line"
  kc_record "$case" "$state"
}

# kc_after_completion CASE go|c|cli DELAY_MS unmap IMAGE | umount N — the map or mount completes
# (netns-exec, not cancelled); then its unmap or umount is cancelled at DELAY_MS (the tools'
# syntax; the CLI: its --timeout in ms), grace 30 s.
# One that had not started yet is done again, as the caller would retry it.
kc_after_completion() {
  local case=$1 who=$2 delay=$3 op=$4 obj line state
  if [ "$op" = unmap ]; then
    obj=$(ktest_map "$kc_ns" "$5")
  else
    obj=/mnt/$kc_prefix-$5
    ktest_mount_ceph "$kc_ns" "$obj"
  fi
  [ -n "$(kc_devices)$(kc_mounts)" ] || e2e_die "case $case: the $op's object $obj is not there"
  if [ "$who" = cli ]; then
    line=$(kc_cli "$case" "$op" --timeout "${delay}ms" --cancel-grace 30s "$obj")
    state=$(jq -r .cancel <<<"$line")
  else
    line=$(kc_tool "$who" "$delay" 30000 "$op" "$obj")
    state=$(kc_field state "$line")
  fi
  if [ "$state" = not_started ]; then
    e2e_log "case $case: the $op had not started; done again"
    if [ "$op" = unmap ]; then ktest_src "$kc_ns" unmap "$obj"; else ktest_src "$kc_ns" umount --kind cephfs "$obj"; fi
  fi
  kc_record "$case" "$state"
}

# kc_cli CASE OP ARGS... — netns-exec OP --json from the plugin's namespace; prints the JSON.
kc_cli() {
  local case=$1 op=$2 rc=0 out
  shift 2
  local args=()
  case $op in
    map) args=(--pool rbd --mon "$KTEST_CEPH_MON" --id admin --keyfile "$KTEST_KEYFILE") ;;
    mount) args=(--kind cephfs --type ceph --mon "$KTEST_CEPH_MON" --id admin --keyfile "$KTEST_KEYFILE") ;;
    umount) args=(--kind cephfs) ;;
  esac
  out=$(ktest_src "$kc_ns" "$op" --json "${args[@]}" "$@" 2>>"$kc_log") || rc=$?
  echo "$out" >>"$kc_log"
  jq -e . >/dev/null <<<"$out" || e2e_die "case $case: netns-exec $op printed no JSON (exit $rc): $(tail -n 5 "$kc_log")"
  echo "$out"
}

# kc_cli_timeout CASE TIMEOUT GRACE map IMAGE | mount N — the CLI's --timeout: exit 124 and
# the cancel state in its JSON.
kc_cli_timeout() {
  local case=$1 timeout=$2 grace=$3 op=$4 line rc
  local what=(--image "$5")
  [ "$op" = map ] || what=("/mnt/$kc_prefix-$5")
  line=$(kc_cli "$case" "$op" --timeout "$timeout" --cancel-grace "$grace" "${what[@]}")
  rc=$(jq -r .exit_code <<<"$line")
  [ "$rc" = 124 ] || e2e_die "case $case: netns-exec $op --timeout $timeout exited $rc, not 124: $line"
  kc_record "$case" "$(jq -r .cancel <<<"$line")"
}

# kc_cli_signal CASE AFTER_S GRACE IMAGE — netns-exec map, SIGTERM AFTER_S after its command
# (a child of netns-exec) started: exit 137.
kc_cli_signal() {
  local case=$1 after=$2 grace=$3 pid out=$KTEST_W/cli-signal-$1.json rc=0
  # (exec: the signal goes to netns-exec itself; nsenter --net execs it without a fork.)
  (exec nsenter --net="/run/netns/$kc_ns" -- "$KTEST_EXEC_BIN" map --cluster-id "$KTEST_CID" \
    --config "$KTEST_CONFIG" --json --pool rbd --image "$4" --mon "$KTEST_CEPH_MON" --id admin \
    --keyfile "$KTEST_KEYFILE" --cancel-grace "$grace") >"$out" 2>>"$kc_log" &
  pid=$!
  e2e_wait_until 60 "netns-exec $pid to start its command" pgrep -P "$pid" ||
    e2e_die "case $case: netns-exec map started no command: $(cat "$out")"
  sleep "$after"
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  cat "$out" >>"$kc_log"
  [ "$rc" -eq 137 ] || e2e_die "case $case: netns-exec map exited $rc after SIGTERM, not 137: $(cat "$out")"
  kc_record "$case" "$(jq -r .cancel "$out")"
}

img_go=${kc_images[0]} img_c=${kc_images[1]} img_cli=${kc_images[2]}
t_cases=$SECONDS
# Go: the context.
kc_caller go-map-before go -1 30000 map "$img_go"
kc_caller go-map-5ms go 5 30000 map "$img_go"
kc_caller go-map-300ms-in go +300 30000 map "$img_go"
kc_caller go-map-300ms-in-sigterm go +300 0 map "$img_go"
kc_caller go-mount-5ms go 5 30000 mount 1
kc_caller go-mount-started-sigterm go +0 0 mount 2
kc_after_completion go-unmap-started go +0 unmap "$img_go"
# C: the cancel handle.
kc_caller c-map-before c -1 30000 map "$img_c"
kc_caller c-map-20ms c 20 30000 map "$img_c"
kc_caller c-map-150ms-in-sigterm c +150 0 map "$img_c"
kc_caller c-mount-before c -1 30000 mount 3
kc_caller c-mount-started c +0 30000 mount 4
kc_caller c-mount-50ms-sigterm c 50 0 mount 5
kc_after_completion c-umount-started c +0 umount 6
# The CLI: --timeout, a signal.
kc_cli_timeout cli-map-timeout-1ms 1ms 30s map "$img_cli"
kc_cli_timeout cli-map-timeout-300ms-sigterm 300ms 0s map "$img_cli"
kc_cli_signal cli-map-sigterm-300ms-in 0.3 30s "$img_cli"
kc_cli_timeout cli-mount-timeout-1ms 1ms 30s mount 7
kc_cli_timeout cli-mount-timeout-100ms-sigterm 100ms 0s mount 8
kc_after_completion cli-unmap-timeout-1ms cli 1 unmap "$img_cli"
e2e_log "20 cases in $((SECONDS - t_cases))s: $(for s in "${!kc_count[@]}"; do printf '%s %s, ' "$s" "${kc_count[$s]}"; done)"

# On the node: nothing more than before.
devices_after=$(find /sys/bus/rbd/devices -mindepth 1 -maxdepth 1 | wc -l)
ceph_mounts_after=$(awk '$3 == "ceph"' /proc/mounts | wc -l)
leftover_devices=$((kc_leftover_devices + devices_after - devices_before))
leftover_mounts=$((kc_leftover_mounts + ceph_mounts_after - ceph_mounts_before))

# On the cluster, from a fresh pod on the storage network: the blocklist and the watchers.
holder_ip=$(ip -n "$KTEST_HOLDER_NS" -4 -o addr show dev net1 | awk '{ split($4, a, "/"); print a[1] }')
[ -n "$holder_ip" ] || e2e_die "cannot read the holder's net1 address in $KTEST_HOLDER_NS"
plugin_ns=$KTEST_PLUGIN_NS
ktest_plugin_start probe storage
probe=$KTEST_PLUGIN_NS
KTEST_PLUGIN_NS=$plugin_ns
nsenter --net="/run/netns/$probe" -- timeout 60 ceph -c "$KTEST_CONF" --connect-timeout 20 osd blocklist ls -f json \
  >"$KTEST_W/blocklist.json" 2>>"$kc_log" || e2e_die "ceph osd blocklist ls failed: $(tail -n 3 "$kc_log")"
# (Slurped: this ceph prints the list twice, two JSON documents.)
blocklisted=$(jq -s --arg ip "$holder_ip" '[.[][] | select(.addr | startswith($ip + ":"))] | unique | length' "$KTEST_W/blocklist.json")
# The kernel says so too when Ceph blocklists its client.
kernel_blocklisted=$(dmesg | tail -n +$((kmsg_before + 1)) | grep -ci blocklist || [ $? -eq 1 ])
e2e_log "blocklist: $(jq -sc add "$KTEST_W/blocklist.json") (holder $holder_ip: $blocklisted); kernel messages naming it: $kernel_blocklisted"
blocklisted=$((blocklisted + kernel_blocklisted))
watchers=0
for img in "${kc_images[@]}"; do
  n=$(nsenter --net="/run/netns/$probe" -- timeout 60 rbd -c "$KTEST_CONF" --client-mount-timeout 20 status \
    --format json "rbd/$img" | jq '.watchers | length') || e2e_die "rbd status rbd/$img failed"
  [ "$n" -eq 0 ] || e2e_log "rbd/$img still has $n watchers"
  watchers=$((watchers + n))
done

# Later work: a map, a write read back, an unmap; a mount, a write, an umount.
later_maps_ok=no
dev=$(ktest_map "$kc_ns" "$img_go")
head -c 1M /dev/urandom >"$KTEST_W/later.bin"
dd if="$KTEST_W/later.bin" of="$dev" bs=64k oflag=direct status=none
cmp <(dd if="$dev" bs=64k count=16 iflag=direct status=none) "$KTEST_W/later.bin" ||
  e2e_die "the later map $dev does not read back what was written"
ktest_src "$kc_ns" unmap "$dev"
[ ! -e "$dev" ] || e2e_die "$dev still exists after the later unmap"
ktest_mount_ceph "$kc_ns" "/mnt/$kc_prefix-20"
later_file=/mnt/$kc_prefix-20/later-$KTEST_TAG
dd if="$KTEST_W/later.bin" of="$later_file" bs=64k conv=fsync status=none
# Read back past the page cache (O_DIRECT): what the MDS and OSDs stored.
cmp <(dd if="$later_file" bs=64k iflag=direct status=none) "$KTEST_W/later.bin" ||
  e2e_die "the later mount does not read back what was written to $later_file"
rm "$later_file"
ktest_src "$kc_ns" umount --kind cephfs "/mnt/$kc_prefix-20"
[ -z "$(kc_mounts)" ] || e2e_die "still mounted after the later umount: $(kc_mounts)"
later_maps_ok=yes

e2e_log "outcomes: not_started ${kc_count[not_started]:-0}, undone ${kc_count[undone]:-0}, nothing_left ${kc_count[nothing_left]:-0}, completed ${kc_count[completed]:-0}, left_behind ${kc_count[left_behind]:-0}; watchers $watchers"
echo "FIGURE kernel.cancel: cancels $kc_cancels, leftover_devices $leftover_devices, leftover_mounts $leftover_mounts, blocklisted_clients $blocklisted, later_maps_ok $later_maps_ok"
[ "$kc_cancels" -eq 20 ] || e2e_die "$kc_cancels cancels reported, 20 made"
[ "${kc_count[left_behind]:-0}" -eq 0 ] || e2e_die "${kc_count[left_behind]} cancels left something behind (see $kc_log)"
[ "$leftover_devices" -eq 0 ] || e2e_die "$leftover_devices rbd devices were left by the cancels"
[ "$leftover_mounts" -eq 0 ] || e2e_die "$leftover_mounts ceph mounts were left by the cancels"
[ "$blocklisted" -eq 0 ] || e2e_die "the holder's client was blocklisted ($blocklisted entries or kernel messages)"
[ "$watchers" -eq 0 ] || e2e_die "$watchers watchers left on the scenario's images"
