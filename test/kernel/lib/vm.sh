# shellcheck shell=bash
# The VM harness of the kernel suite: Debian's generic kernel (fetched and unpacked by
# scripts/setup.d/kernel.sh, never installed), a small initramfs built here at test time
# (busybox-static, the modules the suite needs with their dependencies, an /init), and qemu with
# software emulation (TCG: KVM hung at "Booting from ROM" on the machines this was measured on).
# The guest sees the host's whole root read-only over virtio-9p under a tmpfs overlay, so the
# host's Ceph tools run inside it unchanged. The checkout and the build tree are two more 9p
# exports of their own (tags ktsrc, ktbuild): the guest mounts fresh tmpfs over /tmp, /run, /mnt
# and /var/lib/kubelet, which would hide a checkout there if it came through the host's root.
#
# Needs test/e2e/lib/common.sh (logging, bounded waits, scopes).

KVM_KERNEL_CACHE=${NETNS_KERNEL_CACHE:-/var/cache/netns-holder/kernel}
# Modules loaded at boot, in this order (each with its dependencies, soft ones included: libcrc32c
# needs crc32c loaded first or rbd/ceph fail with "unknown symbol"). tcp_diag/udp_diag: sock_diag,
# which inspect and guard use, answers EOPNOTSUPP without them. The other kernel clients and
# their servers (guest/targets.sh): nvme_tcp (NVMe/TCP initiator), nvmet and nvmet_tcp (the
# target, configfs), nfsv4 (the NFS client, nfs with it) and nfsd.
KVM_MODULES=(virtio_pci virtio_net 9pnet_virtio 9p overlay veth bridge ext4 rbd ceph tcp_diag udp_diag
  nvme_tcp nvmet nvmet_tcp nfsv4 nfsd)
# A boot takes 25-40 s of emulated time; on two cores shared with other work, up to twice that.
KVM_BOOT_LIMIT=${KVM_BOOT_LIMIT:-150}

# kvm_kernel_dir — the unpacked kernel package, or fail saying how to get it.
kvm_kernel_dir() {
  local dir
  dir=$(readlink -f "$KVM_KERNEL_CACHE/current" 2>/dev/null) || true
  if [ -z "$dir" ] || [ ! -f "$dir/.complete" ]; then
    e2e_die "Debian's kernel is not in $KVM_KERNEL_CACHE; run: sudo ./dev setup (scripts/setup.d/kernel.sh)"
  fi
  echo "$dir"
}

# kvm_kernel_version DIR — the one version under DIR/lib/modules.
kvm_kernel_version() {
  local v
  v=$(cd "$1/lib/modules" && echo *)
  [ -f "$1/boot/vmlinuz-$v" ] || e2e_die "no single kernel version in $1/lib/modules (found: $v)"
  echo "$v"
}

# kvm_initramfs_build OUT — OUT.cpio.gz with busybox, the modules and /init (guest/init).
kvm_initramfs_build() {
  local out=$1 kdir ver root m
  kdir=$(kvm_kernel_dir)
  ver=$(kvm_kernel_version "$kdir")
  root=$(mktemp -d "${out}.root.XXXXXX")
  mkdir -p "$root"/{bin,dev,proc,sys,lower,upper,newroot,lib/modules/"$ver"}
  cp /bin/busybox "$root/bin/busybox"
  local list=() line ko
  for m in "${KVM_MODULES[@]}"; do
    while read -r line; do
      case $line in
        insmod\ *) ko=${line#insmod }; ko=${ko%% *} ;;
        *) continue ;;
      esac
      ko=${ko#"$kdir/lib/modules/$ver/"}
      case " ${list[*]} " in *" $ko "*) ;; *) list+=("$ko") ;; esac
    done < <(modprobe -d "$kdir" -S "$ver" --show-depends "$m" 2>&1 || e2e_die "modprobe --show-depends $m failed")
  done
  for ko in "${list[@]}"; do
    mkdir -p "$root/lib/modules/$ver/$(dirname "$ko")"
    cp "$kdir/lib/modules/$ver/$ko" "$root/lib/modules/$ver/$ko"
  done
  printf '%s\n' "${list[@]}" >"$root/modules.load"
  cp "$kdir"/lib/modules/"$ver"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$ver/" 2>/dev/null || true
  # The guest's modprobe (mount.ceph and the executor call it) finds the loaded modules here.
  depmod -b "$root" "$ver"
  install -m 0755 "$KVM_LIB/../guest/init" "$root/init"
  (cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out.tmp"
  mv "$out.tmp" "$out"
  rm -rf "$root"
  cp "$kdir/boot/vmlinuz-$ver" "$(dirname "$out")/vmlinuz"
}

# kvm_boot SCOPE NAME NETNS TAP CONSOLE INITRD CMDFIFO SRC BUILD KCMDLINE... — start qemu inside
# NETNS with a virtio NIC on TAP, the host root over 9p, and the checkout SRC and the build tree
# BUILD as the 9p exports ktsrc and ktbuild; the first serial port is the console (a file), the
# second takes commands from the host (qemu's pipe chardev: CMDFIFO.in). Records its PID in SCOPE
# and returns at once.
kvm_boot() {
  local scope=$1 name=$2 ns=$3 tap=$4 console=$5 initrd=$6 fifo=$7 src=$8 build=$9
  shift 9
  local kernel
  kernel=$(dirname "$initrd")/vmlinuz
  : >"$console"
  rm -f "$fifo.in" "$fifo.out"
  mkfifo -m 0600 "$fifo.in" "$fifo.out"
  # -smp 2 with multi-threaded TCG; memory small: the guest runs the host's tools from 9p.
  e2e_spawn "$scope" "$name" "$ns" "$console.qemu" qemu-system-x86_64 \
    -accel tcg -machine q35 -cpu max -smp 2 -m 1024 -nodefaults -no-user-config -display none \
    -no-reboot -serial "file:$console" -chardev "pipe,id=cmd,path=$fifo" -device isa-serial,chardev=cmd \
    -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 loglevel=4 panic=-1 $*" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs "$(kvm__virtfs "$src" ktsrc)" -virtfs "$(kvm__virtfs "$build" ktbuild)" \
    -netdev "tap,id=n0,ifname=$tap,script=no,downscript=no" \
    -device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56" \
    -device virtio-rng-pci
}

# kvm__virtfs PATH TAG — a read-only -virtfs export of PATH (qemu's option syntax doubles a comma).
kvm__virtfs() {
  echo "local,path=${1//,/,,},mount_tag=$2,security_model=none,readonly=on,multidevs=remap"
}

# kvm_console_has CONSOLE OFFSET PATTERN — PATTERN (grep -E) on a line after byte OFFSET.
kvm_console_has() {
  tail -c +"$(($2 + 1))" "$1" | tr -d '\r' | grep -E "$3" >/dev/null
}

# kvm_wait_console SCOPE NAME CONSOLE OFFSET PATTERN LIMIT — bounded wait for PATTERN on the
# console after OFFSET while the VM runs. 0 found, 1 timed out, 2 the VM is gone.
# The boot wait gives the guest's own failure lines in PATTERN too, so a guest that cannot start
# fails its scenario at once.
kvm_wait_console() {
  local scope=$1 name=$2 console=$3 offset=$4 pattern=$5 limit=$6 deadline
  deadline=$((SECONDS + limit))
  while :; do
    kvm_console_has "$console" "$offset" "$pattern" && return 0
    e2e_tracked_pid "$scope" "$name" >/dev/null || return 2
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}
