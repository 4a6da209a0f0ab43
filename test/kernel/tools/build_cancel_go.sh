#!/usr/bin/env bash
# Builds tools/cancel_go (scenario cancel's Go caller) on the host, as a plugin would build
# against netnsexec: the library component installed to a prefix in the build tree, found by
# pkg-config, linked statically so that the guest runs it without that prefix.
#   build_cancel_go.sh BUILD_DIR SOURCE_DIR OUTPUT
set -euo pipefail
build=$1 src=$2 out=$3
. "$src/test/abi/find_go.sh"
work=$build/test/kernel/cancel-go
# A fixed prefix and a cache of their own: Go's build cache keeps the -L path pkg-config gave.
prefix=$work/prefix
rm -rf "$prefix" "$work/mod"
cmake --install "$build" --prefix "$prefix" --component netns_exec >/dev/null
pc=$(find "$prefix" -name netns_exec.pc | head -n1)
[ -n "$pc" ] || { echo "build_cancel_go: netns_exec.pc was not installed" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
mkdir -p "$work/mod"
cp "$src/test/kernel/tools/cancel_go/main.go" "$work/mod/main.go"
cat >"$work/mod/go.mod" <<MOD
module example.com/kernelcancel

go 1.22

require github.com/netns-holder/netns-holder/executor/go v0.0.0
replace github.com/netns-holder/netns-holder/executor/go => $src/executor/go
MOD
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod CGO_ENABLED=1
export GOCACHE=$work/go-cache GOPATH=$work/gopath GOTMPDIR=
cd "$work/mod"
CGO_LDFLAGS="$(pkg-config --static --libs netns_exec)" \
  "$go" build -o "$out" -ldflags '-linkmode=external -extldflags=-static' .
