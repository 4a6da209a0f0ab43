#!/usr/bin/env bash
# The installed libnetns_exec, used from outside the build: install the
# library component to a temporary prefix, then build and run
#   - a C program via pkg-config,
#   - a Go program via cgo (standard library only, no network),
#   - a C++ program via find_package(NetnsExec),
# each running a command in a real netns-holder's namespace.
#   abi_test.sh BUILD_DIR SOURCE_DIR HOLDER_BIN
set -euo pipefail
build=$1 src=$2 holder_bin=$3
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

# Only the API is exported: netns_common's and the spawn engine's internals stay local.
exported=$(nm -D --defined-only "$libdir/libnetns_exec.so" | c++filt)
grep -Eq ' netns_exec_run(@|$)' <<<"$exported" || { echo "abi_test: netns_exec_run not exported"; exit 1; }
if grep -q 'netns::read_file\|netns::make_socket' <<<"$exported"; then
  echo "abi_test: internal symbols are exported:"; grep 'netns::read_file\|netns::make_socket' <<<"$exported"; exit 1
fi

# A real holder in its own network namespace.
mkdir "$work/holder"
id=abi-$$
unshare --net -- "$holder_bin" --cluster-id "$id" --dir "$work/holder" 2>"$work/holder.log" &
holder_pid=$!
for _ in $(seq 1 200); do
  [ -e "$work/holder/$id.holder.json" ] && [ -e "$work/holder/$id.net.ns" ] && break
  sleep 0.05
done
link=$work/holder/$id.net.ns
ino=$(stat -L -c %i "$link")
[ "$ino" != "$(stat -L -c %i /proc/self/ns/net)" ] || { echo "abi_test: holder not in its own namespace"; exit 1; }

cc -std=c11 -Wall -Wextra -Werror "$src/abi_c.c" $(pkg-config --cflags --libs netns_exec) -o "$work/abi_c"
"$work/abi_c" "$link" "$ino"

mkdir -p "$work/go"
cp "$src/go/main.go" "$work/go/main.go"
(
  cd "$work/go"
  export GOCACHE=$work/gocache GOPATH=$work/gopath GOFLAGS= GOPROXY=off GO111MODULE=off CGO_ENABLED=1
  go build -o "$work/abi_go" main.go
)
"$work/abi_go" "$link" "$ino"

cmake -S "$src/cmake_consumer" -B "$work/cxx" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" >/dev/null
cmake --build "$work/cxx" >/dev/null
"$work/cxx/abi_cxx" "$link" "$ino"
echo "abi_test: ok"
