#!/usr/bin/env bash
# go.config_differential: builds the reference (this directory's Go program)
# and compares it with netns_config_driver.
#   run.sh BUILD_DIR SOURCE_DIR DRIVER [go-config flags...]
set -euo pipefail
build=$1 src=$2 driver=$3
shift 3
. "$src/test/abi/find_go.sh"
here=$src/test/go-config
unformatted=$("$(dirname "$go")/gofmt" -l "$here/reference")
[ -z "$unformatted" ] || { echo "go-config: not gofmt-formatted: $unformatted"; exit 1; }
work=$(mktemp -d /tmp/netns-go-config.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS= CGO_ENABLED=0
export GOCACHE=$build/go-cache GOPATH=$work/gopath GOTMPDIR=$work
cd "$here/reference"
"$go" vet .
"$go" build -o "$work/go-config" .
"$work/go-config" -driver "$driver" -corpus "$here/corpus" "$@"
