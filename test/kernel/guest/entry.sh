#!/bin/bash
# PID 1 of the guest after switch_root: fresh tmpfs where the host's state must not show through
# (/run holds the host's netns names, /tmp its files), then the scenario, then power off. The
# last line on the console is "KTEST-RC: N", which the host reads as the scenario's result.
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /var/lib/kubelet 2>/dev/null || { mkdir -p /var/lib/kubelet && mount -t tmpfs -o mode=0755 tmpfs /var/lib/kubelet; }
mount -t tmpfs -o mode=0755 tmpfs /mnt
hostname ktest
ip link set lo up
echo "KTEST-UP $(cut -d' ' -f1 /proc/uptime)s"
# shellcheck disable=SC1090
. "$ktest_env"
export KTEST_SRC KTEST_NAME KTEST_CEPH_DIR KTEST_CEPH_MON KTEST_CEPH_IP KTEST_CEPH_FS KTEST_HOLDER_BIN KTEST_EXEC_BIN
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
bash "$KTEST_SRC/guest/scenario.sh" "$KTEST_NAME" </dev/null
rc=$?

echo "KTEST-RC: $rc"
/bin/busybox poweroff -f
