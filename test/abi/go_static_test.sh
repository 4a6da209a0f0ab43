#!/usr/bin/env bash
# A Go program linked statically against the installed static archive:
# install the library component, check that libnetns_exec.a is there and that
# `pkg-config --static --libs netns_exec` is all a static link needs, build
# test/abi/go_static (the package netnsexec, by a replace directive) as a
# static executable, remove the installed prefix, and run it against a real
# holder. The control: the same program linked the ordinary way stops at
# start-up once the prefix is gone, so the static one really carries the
# library.
#   go_static_test.sh BUILD_DIR SOURCE_DIR HOLDER_BIN
set -euo pipefail
build=$1 src=$2 holder_bin=$3
if [ "$(id -u)" -ne 0 ]; then
  echo "go_static_test: needs root (the holder gets its own network namespace); skipping"
  exit 77
fi
. "$src/test/abi/find_go.sh"

work=$(mktemp -d /tmp/netns-gostatic.XXXXXX)
holder_pid=
cleanup() {
  if [ -n "$holder_pid" ]; then kill "$holder_pid" 2>/dev/null || true; wait "$holder_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "go_static_test: $*" >&2; exit 1; }

# A fixed prefix (as go_test.sh): Go's build cache keeps the -L path.
prefix=$build/go-prefix-static
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" --component netns_exec >/dev/null
pc=$(find "$prefix" -name netns_exec.pc | head -n1)
[ -n "$pc" ] || fail "netns_exec.pc was not installed"
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir netns_exec)
[ -f "$libdir/libnetns_exec.a" ] || fail "cmake --install --component netns_exec installed no $libdir/libnetns_exec.a"
static_libs=$(pkg-config --static --libs netns_exec)
echo "go_static_test: pkg-config --static --libs netns_exec: $static_libs"

# A C program first: the smallest static link, with nothing but what
# pkg-config says (a missing Libs.private entry fails here, by symbol).
cc -static -std=c11 -Wall -Wextra -Werror "$src/test/abi/abi_c.c" \
  $(pkg-config --static --cflags netns_exec) $static_libs -o "$work/abi_c_static" 2>"$work/cc.log" ||
  fail "a static C link with only pkg-config --static's flags failed: $(cat "$work/cc.log")"

# The Go program, in a module of its own that finds netnsexec in the tree.
mkdir -p "$work/mod"
cp "$src/test/abi/go_static/main.go" "$work/mod/main.go"
cat >"$work/mod/go.mod" <<MOD
module example.com/gostatic

go 1.22

require github.com/netns-holder/netns-holder/executor/go v0.0.0
replace github.com/netns-holder/netns-holder/executor/go => $src/executor/go
MOD
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod CGO_ENABLED=1
# A build cache of its own: Go's build cache keeps the linker flags
# pkg-config gave when a cgo package was first built, so a shared cache would
# hand the other Go tests a package that links from this test's prefix, which
# is removed below (seen: go.netnsexec.vet's "cannot find -lnetns_exec").
export GOCACHE=$build/go-cache-static GOPATH=$work/gopath GOTMPDIR=$work
(
  cd "$work/mod"
  # cgo asks pkg-config for --libs only; the static link's other libraries
  # come from --static through CGO_LDFLAGS (executor/go/README.md, the static binary).
  CGO_LDFLAGS="$static_libs" "$go" build -o "$work/go_static" \
    -ldflags '-linkmode=external -extldflags=-static' . 2>"$work/go.log" ||
    fail "static go build failed: $(cat "$work/go.log")"
  "$go" build -o "$work/go_dynamic" . 2>"$work/go-dyn.log" ||
    fail "ordinary go build failed: $(cat "$work/go-dyn.log")"
)
if readelf -l "$work/go_static" | grep 'Requesting program interpreter' >/dev/null ||
   readelf -d "$work/go_static" | grep '(NEEDED)' >/dev/null; then
  fail "the Go program is not static: $(readelf -d "$work/go_static" | grep NEEDED)"
fi
readelf -d "$work/go_dynamic" | grep 'NEEDED.*libnetns_exec' >/dev/null ||
  fail "the control: the ordinary build does not load libnetns_exec.so"

# Nothing installed is left to load.
rm -rf "$prefix"
unset LD_LIBRARY_PATH

# A real holder in its own network namespace.
. "$src/test/abi/start_holder.sh"
start_holder "$work/holder" "gostatic-$$"

rc=0
"$work/go_dynamic" "$link" "$ino" >"$work/dyn.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && grep -q 'libnetns_exec.so' "$work/dyn.out" ||
  fail "the control: the dynamic build ran without its library (exit $rc): $(cat "$work/dyn.out")"

out=$("$work/go_static" "$link" "$ino") || fail "the static Go program failed: $out"
version=$(head -n1 "$src/VERSION")
[ "$out" = "go_static: ok, netnsexec $version" ] || fail "unexpected output: $out"
mkdir "$work/scratch"
"$work/abi_c_static" "$link" "$ino" "$work/scratch" >/dev/null || fail "the static C program failed"
echo "go_static_test: ok (a static Go binary and a static C binary ran in the holder's namespace)"
