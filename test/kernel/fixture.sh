#!/usr/bin/env bash
# The kernel suite's fixture: a Ceph 16 cluster (mon, OSD on memstore, MDS with a CephFS) on the
# host, in its own storage-network namespace, started by the e2e suite's library; and the VM's
# initramfs, built from the cached Debian kernel.
#   fixture.sh up|down
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
ktest_require_root
scope=$KTEST_RUN/cluster

case ${1:-} in
  up)
    if [ -f "$KTEST_STATE" ]; then "$0" down; fi
    # The suite's one deadline counts from here (lib/host.sh KTEST_SUITE_LIMIT).
    deadline=$(($(date +%s) + KTEST_SUITE_LIMIT))
    mkdir -p "$KTEST_RUN" "$KTEST_DIR/vm"
    e2e_scope_new "$scope"
    trap 'rc=$?; [ $rc -eq 0 ] || e2e_scope_cleanup "$scope"; exit $rc' EXIT
    ns=kt$$-storage
    e2e_log "Ceph cluster in namespace $ns (198.18.0.1/20)"
    e2e_ceph_create "$scope" "$KTEST_RUN/ceph" "$ns" 198.18.0.1/20 mds
    e2e_log "initramfs from $(kvm_kernel_dir)"
    kvm_initramfs_build "$KTEST_INITRD"
    ls -l "$KTEST_INITRD"
    : >"$KTEST_FIGURES"
    printf 'KTEST_CEPH_ENV=%q\nKTEST_DEADLINE=%s\n' "$KTEST_RUN/ceph/env" "$deadline" >"$KTEST_STATE"
    e2e_log "kernel fixture up"
    ;;
  down)
    # The VM first (by its recorded PID; its tap is in the cluster's namespace), then the cluster.
    e2e_scope_cleanup "$KTEST_RUN/vm"
    e2e_scope_cleanup "$scope"
    rm -rf "$KTEST_RUN"
    e2e_log "kernel fixture down"
    ;;
  *) echo "usage: fixture.sh up|down" >&2; exit 2 ;;
esac
