#!/bin/bash
# PID 1 of the guest after switch_root. Fresh tmpfs where the host's state must not show through
# (/run holds the host's netns names, /tmp its files), the node's namespaces (guest/node.sh), then
# the agent: one line per scenario from the host on the second serial port ("run NAME TAG"), the
# scenario's output on the console, ended by "KTEST-RC NAME TAG: N". One VM serves the suite.
# The checkout and the build tree come as their own 9p exports (guest/init mounts them under
# /ktest) and are bound back at their host paths after the tmpfs mounts, so the paths in vm.env
# and in the cluster's ceph.conf hold wherever the checkout is, /tmp included.
# A guest that cannot start says KTEST-NODE-FAILED with the reason and powers off: the host's boot
# wait sees either and fails the scenario at once.
node_failed() {
  echo "KTEST-NODE-FAILED: $*"
  /bin/busybox poweroff -f
}
# shellcheck disable=SC1090
. "/ktest/build/$ktest_env" || node_failed "cannot read /ktest/build/$ktest_env (vm.env in the shared build tree)"
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p /dev/pts /dev/shm /var/lib/kubelet
mount -t devpts devpts /dev/pts
# devtmpfs has no /dev/fd (bash's process substitution needs it).
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /var/lib/kubelet
mount -t tmpfs -o mode=0755 tmpfs /mnt
# The shorter path first: a build tree inside the checkout is bound over the checkout's view of it.
for share in $(printf '%s\n' "src ${#KTEST_HOST_SRC}" "build ${#KTEST_HOST_BUILD}" | sort -k2n | cut -d' ' -f1); do
  if [ "$share" = src ]; then at=$KTEST_HOST_SRC; else at=$KTEST_HOST_BUILD; fi
  mkdir -p "$at" && mount --bind "/ktest/$share" "$at" ||
    node_failed "cannot bind the shared $share tree (9p tag kt$share) on $at"
done
[ -f "$KTEST_SRC/guest/node.sh" ] || node_failed "$KTEST_SRC/guest/node.sh is not in the shared checkout"
hostname ktest
ip link set lo up
export KTEST_SRC KTEST_CEPH_DIR KTEST_CEPH_MON KTEST_CEPH_IP KTEST_CEPH_FS KTEST_HOLDER_BIN KTEST_EXEC_BIN KTEST_MAP_THREADS_BIN \
  KTEST_CANCEL_C_BIN KTEST_CANCEL_GO_BIN KTEST_CSI_KUBELET_BIN KTEST_CEPHCSI_BIN KTEST_CEPHCSI_LIBRARY_BIN \
  KTEST_CSI_SANITY_BIN
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
# The command port is opened and set up before KTEST-UP: a serial port nobody has open drops
# what arrives, and the host sends its first command as soon as it reads KTEST-UP.
exec 3</dev/ttyS1
stty -F /dev/ttyS1 raw -echo
bash "$KTEST_SRC/guest/node.sh" </dev/null || node_failed "guest/node.sh exited $?"
echo "KTEST-UP $(cut -d' ' -f1 /proc/uptime)s"
while read -r verb name tag <&3; do
  case $verb in
    run)
      KTEST_NAME=$name KTEST_TAG=$tag bash "$KTEST_SRC/guest/scenario.sh" </dev/null
      echo "KTEST-RC $name $tag: $?"
      ;;
    poweroff) break ;;
  esac
done
/bin/busybox poweroff -f
