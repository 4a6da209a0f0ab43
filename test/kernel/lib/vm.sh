# shellcheck shell=bash
# The VM harness of the kernel suite: Debian's generic kernel (fetched and unpacked by
# scripts/setup.d/kernel.sh, never installed), a small initramfs built here at test time
# (busybox-static, the modules the suite needs with their dependencies, an /init), and qemu with
# software emulation (TCG: KVM hung at "Booting from ROM" on the machines this was measured on).
# The guest sees the host's whole root read-only over virtio-9p under a tmpfs overlay, so the
# host's Ceph tools and this build tree run inside it unchanged.
#
# Needs test/e2e/lib/common.sh (logging, bounded waits, scopes).

KVM_KERNEL_CACHE=${NETNS_KERNEL_CACHE:-/var/cache/netns-holder/kernel}
# Modules loaded at boot, in this order (each with its dependencies, soft ones included: libcrc32c
# needs crc32c loaded first or rbd/ceph fail with "unknown symbol").
KVM_MODULES=(virtio_pci virtio_net 9pnet_virtio 9p overlay veth bridge ext4 rbd ceph)
KVM_BOOT_LIMIT=${KVM_BOOT_LIMIT:-90}

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

# kvm_boot SCOPE NAME NETNS TAP CONSOLE KCMDLINE... — start qemu inside NETNS with a virtio NIC on
# TAP and the host root over 9p; record its PID in SCOPE. Returns at once.
kvm_boot() {
  local scope=$1 name=$2 ns=$3 tap=$4 console=$5 initrd=$6
  shift 6
  local kernel
  kernel=$(dirname "$initrd")/vmlinuz
  : >"$console"
  # -smp 2 with multi-threaded TCG; memory small: the guest runs the host's tools from 9p.
  e2e_spawn "$scope" "$name" "$ns" "$console.qemu" qemu-system-x86_64 \
    -accel tcg -machine q35 -cpu max -smp 2 -m 1024 -nodefaults -no-user-config -display none \
    -no-reboot -serial "file:$console" -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 loglevel=4 panic=-1 $*" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -netdev "tap,id=n0,ifname=$tap,script=no,downscript=no" \
    -device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56" \
    -device virtio-rng-pci
}

# kvm_wait_result SCOPE NAME CONSOLE LIMIT — wait (bounded) until the guest printed its result line
# "KTEST-RC: N" and powered off; echo N. On a timeout the VM is killed and 124 printed.
kvm_wait_result() {
  local scope=$1 name=$2 console=$3 limit=$4 deadline pid
  deadline=$((SECONDS + limit))
  local booted=
  while :; do
    pid=$(e2e_tracked_pid "$scope" "$name") || break
    if [ -z "$booted" ] && grep -q 'KTEST-UP' "$console"; then booted=$SECONDS; fi
    if [ -z "$booted" ] && [ "$SECONDS" -ge $((deadline - limit + KVM_BOOT_LIMIT)) ]; then
      e2e_log "the guest is not up after ${KVM_BOOT_LIMIT}s"
      break
    fi
    [ "$SECONDS" -lt "$deadline" ] || { e2e_log "the guest did not finish in ${limit}s"; break; }
    sleep 0.5
  done
  e2e_scope_kill "$scope" 2
  local rc
  rc=$(tr -d '\r' <"$console" | sed -n 's/^KTEST-RC: \([0-9]*\)$/\1/p' | tail -n 1)
  echo "${rc:-124}"
}
