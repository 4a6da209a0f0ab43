#!/usr/bin/env bash
# One version for everything a user can see: the VERSION file at the top of
# the tree, and every place that states a version must say the same.
#   version_test.sh SOURCE_DIR NETNS_EXEC NETNS_HOLDER PC_DIR
# (PC_DIR: where the build wrote netns_exec.pc.) CMake, the .pc file and both
# --version flags are generated from VERSION; the Go package and the two
# charts are text that must be edited with it, so this test compares them.
set -euo pipefail
src=$1 exec_bin=$2 holder_bin=$3 pc_dir=$4
fail=0
bad() { echo "version_test: $*" >&2; fail=1; }

version=$(head -n1 "$src/VERSION")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "version_test: VERSION is '$version', not MAJOR.MINOR.PATCH" >&2; exit 1; }
[ "$(wc -l <"$src/VERSION")" -eq 1 ] || bad "VERSION has more than one line"

same() {  # WHAT GOT
  [ "$2" = "$version" ] || bad "$1 says '$2', VERSION says '$version' (edit $1 or VERSION)"
}

same "netns-exec --version" "$("$exec_bin" --version | sed -n 's/^netns-exec //p')"
same "netns-holder --version" "$("$holder_bin" --version | sed -n 's/^netns-holder //p')"
same "netns_exec.pc" "$(PKG_CONFIG_PATH=$pc_dir pkg-config --modversion netns_exec)"

go_dir=$src/executor/go/netnsexec
same "executor/go/netnsexec/version.go (const Version)" \
  "$(sed -n 's/^const Version = "\(.*\)"$/\1/p' "$go_dir/version.go")"
same "executor/go/netnsexec/doc.go (package doc)" \
  "$(sed -n 's|^// This is the package of netns-holder \([0-9.]*\) .*|\1|p' "$go_dir/doc.go")"
same "executor/go/netnsexec/doc.go (libnetns_exec it builds against)" \
  "$(sed -n 's|^// built against libnetns_exec \([0-9.]*\) .*|\1|p' "$go_dir/doc.go")"

for chart in manifests/chart/netns-holder manifests/plugin; do
  same "$chart/Chart.yaml (appVersion)" \
    "$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$src/$chart/Chart.yaml")"
done

# The changelog has the Unreleased section, and either the current
# version's release section or, before the first release of it, says under
# Unreleased that the tree is that version.
grep -qx '## \[Unreleased\]' "$src/CHANGELOG.md" || bad "CHANGELOG.md has no '## [Unreleased]' section"
grep -q "^## \[$version\] - [0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}$" "$src/CHANGELOG.md" ||
  awk '/^## \[Unreleased\]/ { u = 1; next } /^## / { u = 0 } u' "$src/CHANGELOG.md" | tr '\n' ' ' |
    grep -q "the tree is version $version " ||
  bad "CHANGELOG.md has neither a '## [$version] - YYYY-MM-DD' section nor 'the tree is version $version' under Unreleased"
# The licence is the Apache License 2.0, as NOTICE and the SPDX line say.
grep -q '^ *Apache License$' "$src/LICENSE" && grep -q '^ *Version 2.0, January 2004$' "$src/LICENSE" ||
  bad "LICENSE is not the Apache License, Version 2.0"
grep -q 'SPDX-License-Identifier: Apache-2.0' "$src/NOTICE" || bad "NOTICE does not name Apache-2.0"

[ "$fail" -eq 0 ] && echo "version_test: everything says $version"
exit "$fail"
