#!/usr/bin/env bash
# netns_exec.pc finds its prefix from where it is installed, for every
# libdir layout: lib, lib64, Debian's multiarch lib/x86_64-linux-gnu (three
# levels below the prefix), and an absolute libdir.
#   pc_paths_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d /tmp/netns-pc.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0

# render LIBDIR PLACE: writes the .pc rendered for LIBDIR into PLACE/pkgconfig
# below the fake prefix $work/usr, and prints pkg-config's libdir and includedir.
render() {
  local libdir=$1 place=$2
  rm -rf "$work/usr"
  mkdir -p "$work/usr/$place/pkgconfig" "$work/usr/include"
  cmake -DSRC="$src" -DLIBDIR="$libdir" -DINCLUDEDIR=include \
    -DOUT="$work/usr/$place/pkgconfig/netns_exec.pc" -P "$src/test/abi/render_pc.cmake"
  PKG_CONFIG_PATH="$work/usr/$place/pkgconfig" pkg-config --variable=libdir netns_exec
  PKG_CONFIG_PATH="$work/usr/$place/pkgconfig" pkg-config --variable=includedir netns_exec
}

for libdir in lib lib64 lib/x86_64-linux-gnu; do
  mapfile -t got < <(render "$libdir" "$libdir")
  lib=$(realpath -m "${got[0]}") inc=$(realpath -m "${got[1]}")
  if [ "$lib" != "$work/usr/$libdir" ] || [ "$inc" != "$work/usr/include" ]; then
    echo "pc_paths_test: libdir $libdir: pkg-config says libdir=$lib includedir=$inc," \
         "want $work/usr/$libdir and $work/usr/include"
    fail=1
  fi
done

# Control: a file rendered for the multiarch layout but lying two levels
# deep resolves elsewhere, so the comparison above can fail.
mapfile -t got < <(render lib/x86_64-linux-gnu lib)
if [ "$(realpath -m "${got[1]}")" = "$work/usr/include" ]; then
  echo "pc_paths_test: control: the includedir does not depend on where the file lies"
  fail=1
fi

# An absolute libdir is written as it is.
mapfile -t got < <(render /opt/netns/lib64 lib64)
if [ "${got[0]}" != /opt/netns/lib64 ]; then
  echo "pc_paths_test: absolute libdir: pkg-config says ${got[0]}"
  fail=1
fi

[ "$fail" -eq 0 ] && echo "pc_paths_test: ok"
exit "$fail"
