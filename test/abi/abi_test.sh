#!/usr/bin/env bash
# The installed libnetns_exec, used from outside the build: install the
# library component to a temporary prefix, check what it exports, then build
# and run
#   - a C program via pkg-config (abi_c.c),
#   - a Go program via cgo (standard library only, no network),
#   - a C++ program via find_package(NetnsExec),
#   - the C++ and C examples of README.md's "libnetns_exec" section, as written,
# each running a command in a real netns-holder's namespace.
#   abi_test.sh BUILD_DIR SOURCE_DIR HOLDER_BIN README EXEC_A SPAWN_A COMMON_A
# (SOURCE_DIR is test/abi; the archives are the static libraries the shared
# one is made of.)
set -euo pipefail
build=$1 src=$2 holder_bin=$3 readme=$4 exec_a=$5 spawn_a=$6 common_a=$7
if [ "$(id -u)" -ne 0 ]; then
  echo "abi_test: needs root (the holder gets its own network namespace); skipping"
  exit 77
fi

work=$(mktemp -d /tmp/netns-abi.XXXXXX)
holder_pid=
cleanup() {
  if [ -n "$holder_pid" ]; then kill "$holder_pid" 2>/dev/null || true; wait "$holder_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cmake --install "$build" --prefix "$work/prefix" --component netns_exec >/dev/null
pc=$(find "$work/prefix" -name netns_exec.pc | head -n1)
[ -n "$pc" ] || { echo "abi_test: netns_exec.pc was not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir netns_exec)
export LD_LIBRARY_PATH=$libdir

# What is exported. Demangled names without the parameter list.
names() { sed -e 's/@.*//' -e 's/(.*//'; }
exported=$(nm -D --defined-only "$libdir/libnetns_exec.so" | c++filt | awk '{ $1=""; $2=""; sub(/^  /, ""); print }' | names | sort -u)
grep -qx 'netns_exec_run' <<<"$exported" || { echo "abi_test: netns_exec_run not exported"; exit 1; }
# Nothing internal: no detail namespace, none of netns_common's helpers.
if grep -E '::detail::|^netns::(read_file|make_socket|open_fd|write_file_atomic)$' <<<"$exported"; then
  echo "abi_test: internal symbols (above) are exported"; exit 1
fi
# Everything the installed headers declare: every function the API's own
# archives define outside a detail or anonymous namespace, and every one of
# netns_common's objects whose header is installed (netns/X.hpp -> X.cpp.o).
defined() {  # ARCHIVE [MEMBER...]: strong definitions, per member
  nm -C --defined-only "$1" | awk -v want="${*:2}" '
    /\.o:$/ { member = substr($1, 1, length($1) - 1); keep = (want == "" || index(" " want " ", " " member " ")); next }
    keep && $2 ~ /^[TDBR]$/ { $1 = ""; $2 = ""; sub(/^  /, ""); print }'
}
members=
for h in "$work"/prefix/include/netns/*.hpp; do members+=" $(basename "$h" .hpp).cpp.o"; done
declared=$({ defined "$exec_a"; defined "$spawn_a"; defined "$common_a" $members; } |
  grep '^netns::' | grep -v -e '::detail::' -e '(anonymous namespace)' | names | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -n "$missing" ]; then
  echo "abi_test: declared in installed headers but not exported (mark the declaration NETNS_EXEC_API):"; echo "$missing"; exit 1
fi

# A real holder in its own network namespace.
mkdir "$work/scratch"
. "$src/start_holder.sh"
start_holder "$work/holder" "abi-$$"

cc -std=c11 -Wall -Wextra -Werror "$src/abi_c.c" $(pkg-config --cflags --libs netns_exec) -pthread -o "$work/abi_c"
"$work/abi_c" "$link" "$ino" "$work/scratch"

# The Ceph operations' cancellation through the installed C ABI, with a
# stand-in rbd and sysfs (this host has no krbd).
ceph=$work/ceph
mkdir -p "$ceph/sys/devices"
d=$ceph/sys/devices/0
cat >"$ceph/rbd" <<RBD
#!/bin/sh
case " \$* " in
*" unmap "*) echo "unmap \$2" >> $ceph/log; rm -rf $d ;;
*" map "*) echo map-start >> $ceph/log; sleep 1; mkdir -p $d; echo rbd > $d/pool; echo img > $d/name
  echo - > $d/current_snap; : > $d/pool_ns; echo '198.18.0.10:6789 name=admin rbd img -' > $d/config_info
  echo map-done >> $ceph/log; echo /dev/rbd0 ;;
esac
RBD
chmod 755 "$ceph/rbd"
cc -std=c11 -Wall -Wextra -Werror "$src/abi_ceph_cancel.c" $(pkg-config --cflags --libs netns_exec) -pthread -o "$work/abi_ceph_cancel"
"$work/abi_ceph_cancel" "$link" "$ceph"

. "$src/find_go.sh"
mkdir -p "$work/go"
cp "$src/go/main.go" "$work/go/main.go"
(
  cd "$work/go"
  export GOCACHE=$work/gocache GOPATH=$work/gopath GOFLAGS= GOPROXY=off GO111MODULE=off CGO_ENABLED=1 GOTOOLCHAIN=local
  "$go" build -o "$work/abi_go" main.go
)
"$work/abi_go" "$link" "$ino"

cmake -S "$src/cmake_consumer" -B "$work/cxx" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" >/dev/null
cmake --build "$work/cxx" >/dev/null
"$work/cxx/abi_cxx" "$link" "$ino"

# README.md's examples, as written: the ```cpp and ```c blocks of its
# "## libnetns_exec" section, compiled with warnings as errors and run.
. "$(dirname "$src")/support/markdown_block.sh"
extract() { markdown_block "$readme" "## libnetns_exec" "$1"; }
extract cpp >"$work/readme_example.cpp"
extract c >"$work/readme_example.c"
for f in "$work/readme_example.cpp" "$work/readme_example.c"; do
  [ -s "$f" ] || { echo "abi_test: README.md has no $(basename "$f") example in its libnetns_exec section"; exit 1; }
done
"${CXX:-c++}" -std=c++20 -Wall -Wextra -Werror "$work/readme_example.cpp" \
  $(pkg-config --cflags --libs netns_exec) -o "$work/readme_cxx"
cc -std=c11 -Wall -Wextra -Werror "$work/readme_example.c" \
  $(pkg-config --cflags --libs netns_exec) -o "$work/readme_c"
for example in readme_cxx readme_c; do
  out=$("$work/$example" "$link" readlink /proc/self/ns/net)
  [ "$out" = "net:[$ino]" ] || { echo "abi_test: $example ran in $out, not net:[$ino]"; exit 1; }
  rc=0
  "$work/$example" /nonexistent/abi.net.ns true 2>"$work/$example.err" || rc=$?
  if [ "$rc" -ne 125 ] || ! grep -q 'abi.net.ns' "$work/$example.err"; then
    echo "abi_test: $example: a missing file gave exit $rc: $(cat "$work/$example.err")"; exit 1
  fi
done
echo "abi_test: ok"
