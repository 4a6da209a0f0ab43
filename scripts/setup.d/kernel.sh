#!/usr/bin/env bash
# Debian's generic kernel for the VM suite (test/kernel): this machine's own kernel may lack the
# rbd and ceph modules, Debian's -amd64 flavour has them (and 9p, which the -cloud flavour lacks).
# The package is fetched with `apt-get download` — exactly the version linux-image-amd64 depends
# on, never a glob (a glob fetches every kernel) — and unpacked with dpkg-deb -x into a cache:
# never installed on the host. A second run with the same version costs nothing.
#   kernel.sh [CACHE]     (default /var/cache/netns-holder/kernel, or $NETNS_KERNEL_CACHE)
# Leaves CACHE/current -> CACHE/<package>/ with boot/vmlinuz-<ver> and lib/modules/<ver>.
set -euo pipefail
cache=${1:-${NETNS_KERNEL_CACHE:-/var/cache/netns-holder/kernel}}
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
if [ -z "$pkg" ]; then
  echo "kernel setup: cannot tell which kernel linux-image-amd64 depends on (apt-cache depends linux-image-amd64); run apt-get update" >&2
  exit 1
fi
dir=$cache/$pkg
if [ -f "$dir/.complete" ]; then
  ln -sfn "$pkg" "$cache/current"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] && [ ! -w "$cache" ]; then
  # Not fatal for an unprivileged build: the kernel suite needs root anyway, and its fixture
  # fails naming this script when the kernel is missing.
  echo "kernel setup: $pkg is not in $cache yet and writing there needs root; the kernel suite (test/kernel) needs: sudo ./dev setup" >&2
  exit 0
fi
echo "kernel setup: fetching $pkg into $cache (unpacked, not installed)"
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# apt-get download writes into the current directory; as root it drops to the _apt user, which
# must be able to write there.
chmod 0755 "$tmp"
chown _apt "$tmp" 2>/dev/null || true
(cd "$tmp" && apt-get download -qq "$pkg")
deb=$(find "$tmp" -maxdepth 1 -name "${pkg}_*.deb" -print -quit)
[ -n "$deb" ] || { echo "kernel setup: apt-get download $pkg left no .deb in $tmp" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
dpkg-deb -x "$deb" "$dir"
ver=${pkg#linux-image-}
[ -f "$dir/boot/vmlinuz-$ver" ] || { echo "kernel setup: $deb has no boot/vmlinuz-$ver" >&2; exit 1; }
# The module index the initramfs builder needs (modprobe -d … --show-depends).
depmod -b "$dir" "$ver"
touch "$dir/.complete"
ln -sfn "$pkg" "$cache/current"
echo "kernel setup: $pkg ready in $dir"
