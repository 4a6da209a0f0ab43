#!/usr/bin/env bash
# A measurement candidate, not part of the build nor installed: netns-exec's
# own objects and archives relinked fully static (glibc too), written to
# BUILD_DIR/test/bench/netns-exec-static. test/bench/run.sh measures it next to
# netns-exec in shim_paired_bench's rounds (NETNS_BENCH_SHIM_ALT) when it
# exists; REPORT.md figure 8 has what it is worth.
#   link-static-candidate.sh BUILD_DIR
# It takes ninja's link command for netns-exec and changes only the output,
# -static-libstdc++/-static-libgcc to -static, and drops the shared objects
# that --as-needed drops from netns-exec anyway (libfmt, libnl, libmnl: -static
# cannot take a .so). glibc warns that the result needs the build's own glibc
# at run time for libmnl's dlopen (executor/cli/libmnl_lazy.cpp) and libnl's
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
mkdir -p "$(dirname "$out")"
bash -c "$cmd" 2> >(grep -v '^$' >&2)
file "$out" | grep -q 'statically linked' || { echo "link-static-candidate: $out is not statically linked" >&2; exit 1; }
echo "$out"
