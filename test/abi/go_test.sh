#!/usr/bin/env bash
# The Go package netnsexec (executor/go) against the installed libnetns_exec:
#   go_test.sh BUILD_DIR SOURCE_DIR HOLDER_BIN test   go test -race ./... (real holders; root)
#   go_test.sh BUILD_DIR SOURCE_DIR HOLDER_BIN vet    go vet ./...
#   go_test.sh BUILD_DIR SOURCE_DIR HOLDER_BIN nocgo  CGO_ENABLED=0 go build ./... fails
#                                                     with nocgo.go's one sentence
# The library component is installed to a temporary prefix and found through
# its pkg-config file, as a plugin's build would. No network: GOPROXY=off
# (the module needs nothing outside the standard library).
set -euo pipefail
build=$1 src=$2 holder_bin=$3 mode=$4

. "$src/test/abi/find_go.sh"
if [ "$mode" = test ] && [ "$(id -u)" -ne 0 ]; then
  echo "go_test: needs root (each test holder gets its own network namespace); skipping"
  exit 77
fi

work=$(mktemp -d /tmp/netns-go.XXXXXX)
trap 'rm -rf "$work"' EXIT
# A fixed prefix per mode, not a temporary one: Go's build cache keeps the
# linker flags pkg-config gave when a package was first built, so the -L
# path must stay valid from one run to the next.
prefix=$build/go-prefix-$mode
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" --component netns_exec >/dev/null
pc=$(find "$prefix" -name netns_exec.pc | head -n1)
[ -n "$pc" ] || { echo "go_test: netns_exec.pc was not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
export LD_LIBRARY_PATH=$(pkg-config --variable=libdir netns_exec)
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS= CGO_ENABLED=1
export GOCACHE=$build/go-cache GOPATH=$work/gopath GOTMPDIR=$work
export NETNSEXEC_TEST_HOLDER=$holder_bin
echo "go_test: $("$go" version)"
cd "$src/executor/go"
case "$mode" in
  nocgo)
    rc=0
    out=$(CGO_ENABLED=0 "$go" build ./... 2>&1) || rc=$?
    echo "$out"
    [ "$rc" -ne 0 ] || { echo "go_test: CGO_ENABLED=0 go build succeeded"; exit 1; }
    errors=$(grep -c '^[^#].*\.go:[0-9]*:[0-9]*: ' <<<"$out" || true)
    [ "$errors" -eq 1 ] || { echo "go_test: $errors compiler errors, want the one sentence"; exit 1; }
    grep -q 'nocgo.go:.*"package netnsexec needs cgo: set CGO_ENABLED=1 and install libnetns_exec (pkg-config netns_exec)"' <<<"$out" ||
      { echo "go_test: the error is not nocgo.go's sentence"; exit 1; }
    if grep -q 'undefined:' <<<"$out"; then echo "go_test: undefined names"; exit 1; fi ;;
  test)
    # A Go t.Skip still passes `go test`: the skips are counted into
    # BUILD_DIR/test/go-skips.txt (one "--- SKIP: name" line each), which
    # `./dev test` adds to the skip count it prints at its end.
    skips=$build/test/go-skips.txt
    mkdir -p "$(dirname "$skips")"
    rm -f "$skips"
    status=0
    "$go" test -race -count=1 -v ./... 2>&1 | tee "$work/go-test.log" || status=$?
    grep -E '^\s*--- SKIP: ' "$work/go-test.log" | sed 's/^[[:space:]]*//' >"$skips" || [ $? -eq 1 ]
    echo "go_test: $(wc -l <"$skips") skipped"
    exit $status ;;
  vet)
    unformatted=$("$(dirname "$go")/gofmt" -l .)
    [ -z "$unformatted" ] || { echo "go_test: not gofmt-formatted: $unformatted"; exit 1; }
    "$go" vet ./... && "$go" build -o "$work/cephcmds" ./examples/cephcmds ;;
  *) echo "go_test: unknown mode $mode"; exit 2 ;;
esac
