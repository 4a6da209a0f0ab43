#!/usr/bin/env bash
# executor/go/README.md's "Building against it", as written: the install
# command of its first block (from this build, into a prefix under a fresh
# $HOME), its second block in a temporary directory outside the repository
# with main.go from its Go block, then the program it builds, with no
# LD_LIBRARY_PATH: refused for a missing file (exit 125), and as root
# `ip -brief address` inside a real holder's namespace. The control: the same
# module linked through a .pc file without the run path cannot start.
#   go_readme_test.sh BUILD_DIR SOURCE_DIR HOLDER_BIN
set -euo pipefail
build=$1 src=$2 holder_bin=$3
readme=$src/executor/go/README.md

. "$src/test/abi/find_go.sh"
work=$(mktemp -d /tmp/netns-go-readme.XXXXXX)
holder_pid=
cleanup() {
  if [ -n "$holder_pid" ]; then kill "$holder_pid" 2>/dev/null || true; wait "$holder_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "go_readme_test: $*"; exit 1; }

. "$src/test/support/markdown_block.sh"
block() { markdown_block "$readme" "## Building against it" "$@"; }
install_block=$(block sh 1) module_block=$(block sh 2) main_go=$(block go 1)
[ -n "$install_block" ] && [ -n "$module_block" ] && [ -n "$main_go" ] ||
  fail "$readme has no install block, module block or Go block under 'Building against it'"

# The README's own environment: a home, its checkout, the Go toolchain on
# PATH; offline. Nothing else (no LD_LIBRARY_PATH, no PKG_CONFIG_PATH). A
# fresh Go build cache, as a first-time user has: Go's cache does not key a
# cgo package on what pkg-config said, so a warm one could hand back another
# run's link flags.
home=$work/home
mkdir -p "$home"
run_env=(env -i HOME="$home" PATH="$(dirname "$go"):/usr/local/bin:/usr/bin:/bin"
  NETNS_CHECKOUT="$src" GOTOOLCHAIN=local GOPROXY=off GOFLAGS= CGO_ENABLED=1
  GOCACHE="$work/go-cache" GOPATH="$work/gopath" GOTMPDIR="$work")

# The install line, from the build the tests use (the configure and build
# lines made it already).
install_line=$(grep '^cmake --install ' <<<"$install_block") || fail "no 'cmake --install' line in the first block"
install_line=${install_line//build-lib/$build}
"${run_env[@]}" bash -euo pipefail -c "$install_line" >/dev/null
pc=$(find "$home" -name netns_exec.pc | head -n1)
[ -n "$pc" ] || fail "the README's install put no netns_exec.pc under \$HOME"

mod=$work/nsip
mkdir -p "$mod"
printf '%s\n' "$main_go" >"$mod/main.go"
# Everything but running the program, which this test does below with its
# own arguments.
build_steps=$(grep -v '^\./nsip' <<<"$module_block")
(cd "$mod" && "${run_env[@]}" bash -euo pipefail -c "$build_steps") || fail "the README's module block failed"
[ -x "$mod/nsip" ] || fail "the module block built no ./nsip"

rc=0
out=$("${run_env[@]}" "$mod/nsip" "$work/absent/ceph-a.net.ns" 2>&1) || rc=$?
echo "nsip (missing file): exit $rc: $out"
[ "$rc" -eq 125 ] || fail "want exit 125 (refused) for a missing namespace file, got $rc"
grep -F 'refused, nothing ran:' <<<"$out" >/dev/null || fail "no refusal message"

if [ "$(id -u)" -eq 0 ]; then
  . "$src/test/abi/start_holder.sh"
  start_holder "$work/holder" "goreadme-$$"
  out=$("${run_env[@]}" "$mod/nsip" "$link" 2>&1) || fail "nsip in the holder's namespace: $out"
  echo "nsip (holder): $out"
  # A fresh namespace has only lo, down.
  grep -E '^lo +DOWN' <<<"$out" >/dev/null || fail "not the holder's fresh namespace (want only lo, DOWN)"
  if grep -v '^lo ' <<<"$out" | grep . >/dev/null; then fail "more than lo: ours, not the holder's"; fi
else
  echo "go_readme_test: not root: the run in a real holder's namespace is left out"
fi

# The control: linked through a .pc without the run path, the same program
# cannot find the library (the failure this file's install used to give).
sed -i 's/ -Wl,-rpath,\${libdir}//' "$pc"
grep -F -- '-Wl,-rpath' "$pc" >/dev/null && fail "control: could not remove the run path from $pc"
# The module exists; other CGO_CFLAGS make Go rebuild the cgo package, so
# that it asks pkg-config again (its cache would not).
rebuild_steps=$(grep -v '^go mod init' <<<"$build_steps")
(cd "$mod" && "${run_env[@]}" CGO_CFLAGS="-O2 -g -DNETNS_CONTROL" bash -euo pipefail -c "$rebuild_steps") ||
  fail "control: the build failed"
rc=0
out=$("${run_env[@]}" "$mod/nsip" "$work/absent/ceph-a.net.ns" 2>&1) || rc=$?
grep -F 'libnetns_exec.so.0: cannot open shared object file' <<<"$out" >/dev/null ||
  fail "control: without the run path the program did not fail to load the library (exit $rc: $out)"
echo "go_readme_test: ok"
