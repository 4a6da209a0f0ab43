#!/usr/bin/env bash
# Run one kernel scenario (test/kernel/scenarios/NAME.sh) inside a fresh VM: a tap device on the
# fixture cluster's storage bridge, qemu started inside that namespace, the scenario run by the
# guest; the guest's console is this test's output and its FIGURE lines go to kernel-figures.txt,
# each figure that counts writes with the result of its check from Ceph's side (KTEST-VERIFY lines,
# read back here with a userspace client: "verified_from_ceph yes|no"). A scenario names its
# figures in "# figure: KEY" lines; a named figure missing from its output fails it.
#   run.sh NAME [LIMIT_SECONDS]   (bounded also by the suite's one deadline, lib/host.sh)
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib/common.sh
. "$here/../e2e/lib/common.sh"
# shellcheck source=../e2e/lib/ceph.sh
. "$here/../e2e/lib/ceph.sh"
# shellcheck source=lib/host.sh
. "$here/lib/host.sh"
# shellcheck source=lib/vm.sh
. "$here/lib/vm.sh"
# shellcheck source=../csi/versions.sh
. "$here/../csi/versions.sh"
ktest_require_root
name=${1:?usage: run.sh NAME [LIMIT]}
limit=${2:-240}
[ -f "$here/scenarios/$name.sh" ] || e2e_die "no scenario $name"
[ -f "$KTEST_STATE" ] || e2e_die "the kernel fixture is not up ($KTEST_STATE missing); run ctest -L kernel"
# shellcheck disable=SC1090
. "$KTEST_STATE"
# shellcheck disable=SC1090
. "$KTEST_CEPH_ENV"
command -v qemu-system-x86_64 >/dev/null || e2e_die "qemu-system-x86_64 not found; run: sudo ./dev setup"
# The suite's one deadline bounds the boot and the scenario too.
left=$(ktest_time_left)
[ "$left" -gt 30 ] || e2e_die "the kernel suite's deadline (${KTEST_SUITE_LIMIT}s from kernel.setup) leaves ${left}s: $name not started"
[ "$KVM_BOOT_LIMIT" -le "$left" ] || KVM_BOOT_LIMIT=$left

vmscope=$KTEST_RUN/vm
console=$vmscope/console.log
fifo=$vmscope/cmd

# One VM serves the scenarios; the first one (or the one after a scenario that had to kill it)
# boots it, bounded.
ktest_vm_ensure() {
  if [ -f "$vmscope/up" ] && e2e_tracked_pid "$vmscope" qemu >/dev/null; then
    return 0
  fi
  e2e_scope_cleanup "$vmscope"
  rm -rf "$vmscope"
  e2e_scope_new "$vmscope"
  local tap=kt$$
  ip -n "$E2E_CEPH_NETNS" tuntap add dev "$tap" mode tap
  e2e_track_link "$vmscope" "$E2E_CEPH_NETNS" "$tap"
  ip -n "$E2E_CEPH_NETNS" link set "$tap" master storage0 up
  # What the guest needs. It reads this file from the shared build tree (9p tag ktbuild) and
  # binds the shared checkout and build tree back at these paths before anything uses them.
  local src_root build_root
  src_root=$(cd "$here/../.." && pwd)
  build_root=$(cd "$KTEST_BUILD_DIR" && pwd)
  case "$vmscope" in
    "$build_root"/*) ;;
    *) e2e_die "the VM's directory $vmscope is not inside the build tree $build_root the guest is given" ;;
  esac
  {
    printf 'KTEST_HOST_SRC=%q\nKTEST_HOST_BUILD=%q\n' "$src_root" "$build_root"
    cat <<ENV
KTEST_SRC=$here
KTEST_CEPH_DIR=$E2E_CEPH_DIR
KTEST_CEPH_MON=$E2E_CEPH_MON
KTEST_CEPH_IP=$E2E_CEPH_IP
KTEST_CEPH_FS=${E2E_CEPH_FS:-}
KTEST_HOLDER_BIN=${E2E_HOLDER_BIN:?}
KTEST_EXEC_BIN=${E2E_EXEC_BIN:?}
KTEST_MAP_THREADS_BIN=${KTEST_MAP_THREADS_BIN:?}
KTEST_CANCEL_C_BIN=${KTEST_CANCEL_C_BIN:-}
KTEST_CANCEL_GO_BIN=${KTEST_CANCEL_GO_BIN:-}
KTEST_CSI_KUBELET_BIN=${KTEST_CSI_KUBELET_BIN:-}
KTEST_CEPHCSI_BIN=$NETNS_CEPHCSI_BIN
KTEST_CEPHCSI_LIBRARY_BIN=${KTEST_CEPHCSI_LIBRARY_BIN:-}
KTEST_CSI_SANITY_BIN=$NETNS_CSI_SANITY_BIN
ENV
  } >"$vmscope/vm.env"
  local t0=$SECONDS
  e2e_log "booting the VM (TCG; console $console; checkout $src_root, build tree $build_root)"
  kvm_boot "$vmscope" qemu "$E2E_CEPH_NETNS" "$tap" "$console" "$KTEST_INITRD" "$fifo" "$src_root" "$build_root" \
    "ktest_env=${vmscope#"$build_root"/}/vm.env"
  # Up, or a guest that says it cannot start (init or entry.sh), or qemu gone: whichever comes
  # first ends the wait, so a guest that cannot start fails here within seconds.
  local wrc=0
  kvm_wait_console "$vmscope" qemu "$console" 0 '^(KTEST-UP|KTEST-NODE-FAILED|KTEST-INIT-FAIL)' "$KVM_BOOT_LIMIT" || wrc=$?
  if [ "$wrc" -ne 0 ] || ! kvm_console_has "$console" 0 '^KTEST-UP'; then
    echo "----- console (last 60 lines) -----"
    tr -d '\r' <"$console" | tail -n 60
    echo "----- qemu -----"
    cat "$console.qemu"
    # A guest that failed powers itself off: qemu may be exiting while the scope's cleanup looks
    # at it, which must not end this script before it says why.
    e2e_scope_cleanup "$vmscope" || e2e_log "cleanup of the VM's scope exited $?"
    case $wrc in
      0) e2e_die "the guest could not start: $(tr -d '\r' <"$console" | grep -E '^KTEST-(NODE-FAILED|INIT-FAIL)' | head -n 1)" ;;
      1) e2e_die "the guest was not up within ${KVM_BOOT_LIMIT}s" ;;
      *) e2e_die "qemu exited before the guest was up" ;;
    esac
  fi
  touch "$vmscope/up"
  e2e_log "the VM is up after $((SECONDS - t0))s"
}

# What the scenario needs of the host's cluster beyond the fixture ("# needs: WHAT" lines).
for need in $(sed -n 's/^# needs: \([^ ]*\).*/\1/p' "$here/scenarios/$name.sh"); do
  case $need in
    ceph-mgr) ktest_ceph_mgr_ensure ;;
    *) e2e_die "scenario $name needs $need, which run.sh does not know" ;;
  esac
done
ktest_vm_ensure
left=$(ktest_time_left)
[ "$left" -gt 0 ] || e2e_die "the kernel suite's deadline (${KTEST_SUITE_LIMIT}s from kernel.setup) passed while the VM booted"
if [ "$limit" -gt "$left" ]; then
  e2e_log "$name: ${left}s left before the suite's deadline (its own limit: ${limit}s)"
  limit=$left
fi
tag=$$
offset=$(stat -c %s "$console")
t0=$SECONDS
e2e_log "running $name in the VM"
echo "run $name $tag" >"$fifo.in"
wrc=0
kvm_wait_console "$vmscope" qemu "$console" "$offset" "^KTEST-RC $name $tag: [0-9]+\$" "$limit" || wrc=$?
out=$(tail -c +"$((offset + 1))" "$console" | tr -d '\r')
if [ "$wrc" -ne 0 ]; then
  echo "$out" | tail -n 80
  if [ "$wrc" -eq 1 ]; then
    # A scenario that does not end may have left the guest hung: the next test boots a new VM.
    e2e_scope_cleanup "$vmscope"
    e2e_die "kernel scenario $name did not finish within ${limit}s; the VM was stopped"
  fi
  cat "$console.qemu" 2>/dev/null || true
  rm -f "$vmscope/up"
  e2e_die "the VM ended during $name"
fi
rc=$(echo "$out" | sed -n "s/^KTEST-RC $name $tag: \\([0-9]*\\)\$/\\1/p" | tail -n 1)
echo "$out"
e2e_log "$name ended after $((SECONDS - t0))s in the VM; exit $rc"
[ "$rc" -eq 0 ] || e2e_die "kernel scenario $name failed (exit $rc)"

# The figures: the ones the scenario names, each present; a figure that counts writes carries
# the outcome of every check from Ceph's side the scenario asked for (at least one).
declare -A figure verdict
while IFS= read -r line; do
  key=${line%%:*}
  key=${key#FIGURE }
  figure[$key]=$line
done < <(echo "$out" | grep '^FIGURE kernel\.' || [ $? -eq 1 ])
for key in $(sed -n 's/^# figure: \([^ ]*\).*/\1/p' "$here/scenarios/$name.sh"); do
  [ -n "${figure[$key]:-}" ] || e2e_die "kernel scenario $name printed no figure $key"
done
failed=()
# (Read from fd 3: the Ceph tools must not eat the list from stdin.)
while read -r _ key kind args <&3; do
  [ -n "${figure[$key]:-}" ] || e2e_die "kernel scenario $name asked for a check from Ceph's side of $key, a figure it did not print"
  # shellcheck disable=SC2086
  if ktest_verify_from_ceph "$KTEST_RUN/verify-$tag" "$kind" $args </dev/null; then
    [ "${verdict[$key]:-yes}" = no ] || verdict[$key]=yes
  else
    verdict[$key]=no
    failed+=("$key ($kind $args)")
  fi
done 3< <(echo "$out" | grep '^KTEST-VERIFY ' || [ $? -eq 1 ])
for key in "${!figure[@]}"; do
  line=${figure[$key]}
  case $line in
    *", verified_from_target "* | *", verified_from_server "*)
      # A client that is not Ceph's (NVMe/TCP, NFS): its server runs in the guest, which read the
      # data back from the target's side itself (guest/targets.sh).
      [ -z "${verdict[$key]:-}" ] || line="$line, verified_from_ceph ${verdict[$key]}"
      case $line in
        *", verified_from_target yes"* | *", verified_from_server yes"*) ;;
        *) failed+=("$key (read back from the target's side)") ;;
      esac
      ;;
    *" writes "*)
      [ -n "${verdict[$key]:-}" ] || e2e_die "figure $key counts writes but its scenario asked for no check from Ceph's side"
      # The fault figures name the check for every client alike: from the server's side, which
      # for Ceph's clients is this one (guest/faults.sh).
      case $key in
        kernel.fault.*) line="$line, verified_from_server ${verdict[$key]}" ;;
        *) line="$line, verified_from_ceph ${verdict[$key]}" ;;
      esac
      ;;
  esac
  ktest_figure_put "$KTEST_FIGURES" "$line"
  echo "$line"
done
[ "${#failed[@]}" -eq 0 ] || e2e_die "read back from Ceph or the target, the data differs from what the guest wrote: ${failed[*]}"
e2e_log "PASS kernel $name"
