#!/usr/bin/env bash
# A measurement candidate, not part of the build nor installed: netns-exec's
# own objects and archives relinked fully static (glibc too), written to
# BUILD_DIR/test/bench/netns-exec-static. test/bench/run.sh measures it next to
# netns-exec in shim_paired_bench's rounds (NETNS_BENCH_SHIM_ALT) when it
# exists; REPORT.md figure 8 has what it is worth.
#   link-static-candidate.sh BUILD_DIR
# It takes ninja's link command for netns-exec and changes only the output,
# -static-libstdc++/-static-libgcc to -static, and drops the shared objects
# that --as-needed drops from netns-exec anyway (libfmt, libnl: -static cannot
# take a .so). libmnl is linked normally and Debian ships only libmnl.so, so a
# libmnl.a is needed (NETNS_LIBMNL_A, or one the linker finds); without one
# there is no candidate, and run.sh says so. glibc warns that the result needs
# the build's own glibc at run time for libnl's
# getaddrinfo/getprotobyname/getprotobynumber: why netns-exec stays dynamic.
set -euo pipefail
build=$(cd "$1" && pwd)
out=$build/test/bench/netns-exec-static
cd "$build"
ninja executor/cli/netns-exec >/dev/null
cmd=$(ninja -t commands executor/cli/netns-exec | tail -n1)
case $cmd in *" -o executor/cli/netns-exec "*) ;; *) echo "link-static-candidate: unexpected link command for netns-exec: $cmd" >&2; exit 1 ;; esac
cmd=${cmd//" -o executor/cli/netns-exec "/" -o $out "}
cmd=${cmd//"-static-libstdc++ -static-libgcc"/-static}
# shellcheck disable=SC2001
cmd=$(sed -E 's# [^ ]+\.so(\.[0-9.]+)?( |$)# #g; s# [^ ]+\.so(\.[0-9.]+)?( |$)# #g' <<<"$cmd")
libmnl_a=${NETNS_LIBMNL_A:-$(gcc -print-file-name=libmnl.a)}
[ -f "$libmnl_a" ] || { echo "link-static-candidate: no libmnl.a (Debian ships only libmnl.so; set NETNS_LIBMNL_A)" >&2; exit 1; }
cmd="$cmd $libmnl_a"
mkdir -p "$(dirname "$out")"
bash -c "$cmd" 2> >(grep -v '^$' >&2)
file "$out" | grep 'statically linked' >/dev/null || { echo "link-static-candidate: $out is not statically linked" >&2; exit 1; }
echo "$out"
