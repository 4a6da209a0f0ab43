#!/usr/bin/env bash
# Run one kernel scenario (test/kernel/scenarios/NAME.sh) inside a fresh VM: a tap device on the
# fixture cluster's storage bridge, qemu started inside that namespace, the scenario run by the
# guest; the guest's console is this test's output and its FIGURE lines go to kernel-figures.txt.
#   run.sh NAME [LIMIT_SECONDS]
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib/common.sh
. "$here/../e2e/lib/common.sh"
# shellcheck source=lib/host.sh
. "$here/lib/host.sh"
# shellcheck source=lib/vm.sh
. "$here/lib/vm.sh"
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
  # What the guest needs, on the host's filesystem that it sees read-only.
  cat >"$vmscope/vm.env" <<ENV
KTEST_SRC=$here
KTEST_CEPH_DIR=$E2E_CEPH_DIR
KTEST_CEPH_MON=$E2E_CEPH_MON
KTEST_CEPH_IP=$E2E_CEPH_IP
KTEST_CEPH_FS=${E2E_CEPH_FS:-}
KTEST_HOLDER_BIN=${E2E_HOLDER_BIN:?}
KTEST_EXEC_BIN=${E2E_EXEC_BIN:?}
KTEST_MAP_THREADS_BIN=${KTEST_MAP_THREADS_BIN:?}
ENV
  local t0=$SECONDS
  e2e_log "booting the VM (TCG; console $console)"
  kvm_boot "$vmscope" qemu "$E2E_CEPH_NETNS" "$tap" "$console" "$KTEST_INITRD" "$fifo" \
    "ktest_entry=$here/guest/entry.sh" "ktest_env=$vmscope/vm.env"
  if ! kvm_wait_console "$vmscope" qemu "$console" 0 '^KTEST-UP' "$KVM_BOOT_LIMIT"; then
    echo "----- console (last 60 lines) -----"
    tr -d '\r' <"$console" | tail -n 60
    cat "$console.qemu" 2>/dev/null || true
    e2e_scope_cleanup "$vmscope"
    e2e_die "the guest was not up within ${KVM_BOOT_LIMIT}s"
  fi
  touch "$vmscope/up"
  e2e_log "the VM is up after $((SECONDS - t0))s"
}

ktest_vm_ensure
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
# Not every scenario has a figure.
{ echo "$out" | grep '^FIGURE kernel\.' || true; } | while IFS= read -r line; do
  ktest_figure_put "$KTEST_FIGURES" "$line"
done
e2e_log "PASS kernel $name"
