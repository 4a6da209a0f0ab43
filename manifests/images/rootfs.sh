#!/usr/bin/env bash
# Lays out the files an image adds, as a directory tree. The Containerfiles run
# it in their build stage and copy the tree into the image; the end-to-end
# tests run it to make the rootfs of a runc bundle. One script, so the image
# and the tested bundle cannot differ.
#
#   rootfs.sh holder OUT NETNS_HOLDER NETNS_EXEC
#       OUT/usr/bin/netns-holder   (static)
#       OUT/usr/bin/netns-exec     (for the preStop guard) and the shared
#                                  libraries it needs, at their own paths:
#                                  the holder image is FROM scratch, so
#                                  nothing else is there to clash with.
#   rootfs.sh plugin OUT NETNS_EXEC [--no-nsenter]
#       OUT/opt/netns-exec/bin/netns-exec, OUT/opt/netns-exec/lib/* (its
#       libraries and dynamic loader, private: the ceph-csi image has another
#       glibc), OUT/usr/local/bin/netns-exec (a launcher) and, unless
#       --no-nsenter, OUT/usr/local/bin/nsenter -> netns-exec, so ceph-csi's
#       `nsenter --net=<netNamespaceFilePath> -- rbd map ...` runs netns-exec.
#   rootfs.sh plugin-shims ROOT
#       On a whole plugin image root (the ceph-csi image with the plugin tree
#       on it): the mount helpers' shims, which replace files of the base
#       image (Containerfile.plugin and build-plugin-image.sh run it).
#   rootfs.sh check-shims ROOT [--no-nsenter]
#       Inside ROOT (root: chroot): netns-exec runs, each shim finds the real
#       program it stands in for, and `nsenter` resolves to netns-exec.
#   rootfs.sh add-binary OUT PATH
#       PATH and its libraries at their own paths (tests use it to add /bin/sh).
#   rootfs.sh check-libraries OUT
#       ldd inside the tree (root: chroot): every ELF file in OUT is listed by
#       the loader it runs with (the private one under /opt/netns-exec, else
#       the tree's own), seeing only OUT; any "not found" fails, naming both.
set -euo pipefail

die() { echo "rootfs.sh: $*" >&2; exit 1; }

# The shared objects a dynamic executable loads, one absolute path a line,
# the dynamic loader included; nothing for a static one.
libraries_of() {
  local bin=$1 out
  out=$(ldd "$bin" 2>&1) || { [[ $out == *"not a dynamic executable"* || $out == *"statically linked"* ]] && return 0; die "ldd $bin: $out"; }
  [[ $out == *"statically linked"* ]] && return 0
  awk '/=> \// { print $3; next } /^\t\// { print $1 }' <<<"$out"
}

copy_to() {  # SRC DEST: file contents (symlinks followed), mode kept
  mkdir -p "$(dirname "$2")"
  cp -L --preserve=mode "$1" "$2"
}

# The libraries as a list first: a failure inside a process substitution
# would go unnoticed, and the image would silently lack a library.
libraries_list() {
  local list
  list=$(libraries_of "$1") || die "cannot list the libraries of $1"
  printf '%s\n' "$list"
}

add_binary() {  # OUT BIN DEST_PATH: binary + libraries at their own paths
  local out=$1 bin=$2 dest=$3 lib libs
  [ -x "$bin" ] || die "$bin is not an executable file"
  copy_to "$bin" "$out$dest"
  libs=$(libraries_list "$bin")
  while read -r lib; do
    [ -n "$lib" ] && copy_to "$lib" "$out$lib"
  done <<<"$libs"
}

holder() {
  local out=$1 holder_bin=$2 exec_bin=$3
  [ -x "$holder_bin" ] || die "$holder_bin is not an executable file"
  if [ -n "$(libraries_of "$holder_bin")" ]; then
    die "$holder_bin is dynamically linked; the holder image wants the static build"
  fi
  copy_to "$holder_bin" "$out/usr/bin/netns-holder"
  add_binary "$out" "$exec_bin" /usr/bin/netns-exec
  # Directories the pod's mounts land on (a FROM scratch image has none).
  mkdir -p "$out/proc" "$out/dev" "$out/sys" "$out/tmp" "$out/var/lib/kubelet/plugins"
}

plugin() {
  local out=$1 exec_bin=$2 nsenter=${3:-}
  local prefix=/opt/netns-exec lib loader="" libs
  copy_to "$exec_bin" "$out$prefix/bin/netns-exec"
  libs=$(libraries_list "$exec_bin")
  while read -r lib; do
    [ -n "$lib" ] || continue
    copy_to "$lib" "$out$prefix/lib/$(basename "$lib")"
    [[ $(basename "$lib") == ld-linux* ]] && loader=$(basename "$lib")
  done <<<"$libs"
  mkdir -p "$out/usr/local/bin"
  if [ -n "$loader" ]; then
    # Our own loader and libraries, whatever glibc the base image has; --argv0
    # keeps the name the caller used (netns-exec switches to its nsenter form
    # when called as nsenter).
    cat >"$out/usr/local/bin/netns-exec" <<LAUNCHER
#!/bin/sh
exec $prefix/lib/$loader --library-path $prefix/lib --argv0 "\$0" $prefix/bin/netns-exec "\$@"
LAUNCHER
    chmod 0755 "$out/usr/local/bin/netns-exec"
  else
    ln -sf "$prefix/bin/netns-exec" "$out/usr/local/bin/netns-exec"
  fi
  # The names netns-exec answers to, each a link next to the launcher (the
  # name it is called by selects the mode); a new masquerade name is one
  # more entry here.
  # Transparent mode: ceph-csi's `rbd` (a PATH lookup) finds the rbd shim
  # first and the shim execs the next rbd on PATH after /usr/local/bin (the
  # image's /usr/bin/rbd). mount.ceph is not in this tree: mount(8) runs
  # helpers from /sbin, not PATH, so the shim must replace /usr/sbin/mount.ceph
  # and the real one move to /usr/bin — Containerfile.plugin does that (and
  # the same for mount.nfs / mount.nfs4). `nvme` (the nvmeof driver's
  # nvme-cli, a PATH lookup like rbd) is a shim the same way as rbd.
  local names=(rbd nvme) name
  [ "$nsenter" = --no-nsenter ] || names+=(nsenter)
  for name in "${names[@]}"; do
    ln -sf netns-exec "$out/usr/local/bin/$name"
  done
}

# Transparent mode's mount helper shims. mount(8) runs helpers from /sbin
# (/usr/sbin), never from PATH, so the shim takes that place and the real
# helper moves to /usr/bin, the next directory on PATH after /usr/sbin. The
# same for NFS where the image has nfs-utils: mount.nfs4 is a link to
# mount.nfs, so both move and both become the shim; umount.nfs and
# umount.nfs4 are links to mount.nfs too, so they become the shim as well,
# which runs them as they are: their real ones go next to the real mount.nfs.
# (The rbd and nvme shims are links in the plugin tree itself.)
present() { [ -e "$1" ] || [ -L "$1" ]; }
plugin_shims() {
  local root=$1
  present "$root/usr/sbin/mount.ceph" || die "$root/usr/sbin/mount.ceph is missing: is $root a ceph-csi image's root?"
  mv "$root/usr/sbin/mount.ceph" "$root/usr/bin/mount.ceph"
  ln -s /usr/local/bin/netns-exec "$root/usr/sbin/mount.ceph"
  if present "$root/usr/sbin/mount.nfs"; then
    mv "$root/usr/sbin/mount.nfs" "$root/usr/bin/mount.nfs"
    rm -f "$root/usr/sbin/mount.nfs4"
    ln -s mount.nfs "$root/usr/bin/mount.nfs4"
    ln -s mount.nfs "$root/usr/bin/umount.nfs"
    ln -s mount.nfs "$root/usr/bin/umount.nfs4"
    ln -s /usr/local/bin/netns-exec "$root/usr/sbin/mount.nfs"
    ln -s /usr/local/bin/netns-exec "$root/usr/sbin/mount.nfs4"
  fi
}

# The finished image, seen from inside (a chroot with the image's PATH):
# ceph-csi must not find another nsenter first, and every shim must find its
# real program.
check_shims() {
  local root=$1 nsenter=${2:-} failed=0
  # netns-exec needs /proc (its own path is /proc/self/exe): a root with no
  # proc mounted (an unpacked image; not a container build's /) gets one in a
  # mount namespace of its own, gone with the command.
  local path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  in_root() {
    if [ -e "$root/proc/self/exe" ]; then
      env -i PATH=$path chroot "$root" "$@"
    else
      mkdir -p "$root/proc"
      # shellcheck disable=SC2016
      unshare --mount --propagation private -- sh -c \
        'root=$1 path=$2; shift 2; mount -t proc proc "$root/proc" && exec env -i PATH="$path" chroot "$root" "$@"' \
        in_root "$root" "$path" "$@"
    fi
  }
  real_is() {  # WANT SHIM ARGS...: `netns-exec shim explain` names WANT as the real program
    local want=$1 out
    shift
    out=$(in_root /usr/local/bin/netns-exec shim explain -- "$@" 2>&1) || true
    if ! grep -x "real: *$want" <<<"$out" >/dev/null; then
      echo "rootfs.sh: in $root, the $1 shim does not run $want:" >&2
      sed 's/^/  /' <<<"$out" >&2
      failed=1
    fi
  }
  in_root /usr/local/bin/netns-exec --help >/dev/null || die "netns-exec does not run in $root"
  real_is /usr/bin/rbd rbd --version
  real_is /usr/bin/mount.ceph mount.ceph -h
  if present "$root/usr/bin/mount.nfs"; then
    real_is /usr/bin/mount.nfs mount.nfs -V
    real_is /usr/bin/umount.nfs4 umount.nfs4 /mnt
  fi
  present "$root/usr/sbin/nvme" && real_is /usr/sbin/nvme nvme version
  if [ "$nsenter" != --no-nsenter ]; then
    local found
    found=$(in_root /bin/sh -c 'command -v nsenter') || true
    [ "$found" = /usr/local/bin/nsenter ] || { echo "rootfs.sh: in $root, nsenter is '$found', not /usr/local/bin/nsenter" >&2; failed=1; }
  fi
  [ "$failed" -eq 0 ] && echo "ok shims in $root"
  return "$failed"
}

# The ldd check, in a chroot so that the build machine's libraries cannot
# stand in for one the tree lacks (ldd outside would find them). The plugin
# tree's programs run with its private loader and --library-path (the
# launcher's way), the holder tree's with the loader named in the ELF.
check_libraries() {
  local out=$1 file rel loader libpath listing failed=0 checked=0
  local private=/opt/netns-exec/lib
  [ -d "$out" ] || die "$out is not a directory"
  while IFS= read -r -d '' file; do
    [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    rel=/${file#"$out"/}
    readelf -d "$file" 2>/dev/null | grep '(NEEDED)' >/dev/null || continue  # static, or the loader
    libpath=()
    if [[ $rel == /opt/netns-exec/* ]] && loader=$(cd "$out" && ls "${private#/}"/ld-linux* 2>/dev/null | head -n1) && [ -n "$loader" ]; then
      loader=/$loader libpath=(--library-path "$private")
    else
      loader=$(readelf -l "$file" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
      [ -n "$loader" ] || loader=/lib64/ld-linux-x86-64.so.2   # a shared library
    fi
    [ -e "$out$loader" ] || { echo "rootfs.sh: $rel: its loader $loader is not in $out" >&2; failed=1; continue; }
    checked=$((checked + 1))
    if ! listing=$(chroot "$out" "$loader" "${libpath[@]}" --list "$rel" 2>&1) || grep -q 'not found' <<<"$listing"; then
      echo "rootfs.sh: $rel: a library is missing from $out:" >&2
      grep 'not found' <<<"$listing" | sed 's/^/  /' >&2 || sed 's/^/  /' <<<"$listing" >&2
      failed=1
    else
      echo "ok $rel"
    fi
  done < <(find "$out" -type f -print0 | sort -z)
  [ "$checked" -gt 0 ] || die "no dynamically linked ELF file in $out"
  return "$failed"
}

cmd=${1:-}
case "$cmd" in
  holder) [ $# -eq 4 ] || die "usage: rootfs.sh holder OUT NETNS_HOLDER NETNS_EXEC"; holder "$2" "$3" "$4" ;;
  plugin) [ $# -ge 3 ] && [ $# -le 4 ] || die "usage: rootfs.sh plugin OUT NETNS_EXEC [--no-nsenter]"; plugin "$2" "$3" "${4:-}" ;;
  plugin-shims) [ $# -eq 2 ] || die "usage: rootfs.sh plugin-shims ROOT"; plugin_shims "$2" ;;
  check-shims) [ $# -ge 2 ] && [ $# -le 3 ] || die "usage: rootfs.sh check-shims ROOT [--no-nsenter]"; check_shims "$2" "${3:-}" ;;
  add-binary) [ $# -eq 3 ] || die "usage: rootfs.sh add-binary OUT PATH"; add_binary "$2" "$3" "$3" ;;
  check-libraries) [ $# -eq 2 ] || die "usage: rootfs.sh check-libraries OUT"; check_libraries "$2" ;;
  *) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
