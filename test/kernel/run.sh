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

scope=$KTEST_RUN/scn-$name
e2e_scope_cleanup "$scope"
rm -rf "$scope"
e2e_scope_new "$scope"
trap 'rc=$?; e2e_scope_cleanup "$scope"; exit $rc' EXIT

tap=kt$$
ip -n "$E2E_CEPH_NETNS" tuntap add dev "$tap" mode tap
e2e_track_link "$scope" "$E2E_CEPH_NETNS" "$tap"
ip -n "$E2E_CEPH_NETNS" link set "$tap" master storage0 up

# What the guest needs, on the host's filesystem that it sees read-only.
cat >"$scope/vm.env" <<ENV
KTEST_SRC=$here
KTEST_NAME=$name
KTEST_CEPH_DIR=$E2E_CEPH_DIR
KTEST_CEPH_MON=$E2E_CEPH_MON
KTEST_CEPH_IP=$E2E_CEPH_IP
KTEST_CEPH_FS=${E2E_CEPH_FS:-}
KTEST_HOLDER_BIN=${E2E_HOLDER_BIN:?}
KTEST_EXEC_BIN=${E2E_EXEC_BIN:?}
ENV

console=$scope/console.log
t0=$SECONDS
e2e_log "booting the VM for $name (TCG, console $console)"
kvm_boot "$scope" qemu "$E2E_CEPH_NETNS" "$tap" "$console" "$KTEST_INITRD" \
  "ktest_entry=$here/guest/entry.sh" "ktest_env=$scope/vm.env"
rc=$(kvm_wait_result "$scope" qemu "$console" "$limit")
e2e_log "the VM ended after $((SECONDS - t0))s; scenario exit $rc"
if [ "$rc" -ne 0 ]; then
  echo "----- console (last 80 lines) -----"
  tr -d '\r' <"$console" | tail -n 80
  cat "$console.qemu" 2>/dev/null || true
  e2e_die "kernel scenario $name failed (exit $rc)"
fi
tr -d '\r' <"$console" | sed -n '/^KTEST-UP/,$p'
tr -d '\r' <"$console" | grep '^FIGURE kernel\.' | while IFS= read -r line; do
  ktest_figure_put "$KTEST_FIGURES" "$line"
done
e2e_log "PASS kernel $name"
