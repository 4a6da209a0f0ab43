# shellcheck shell=bash
# Sourced by scripts/setup.d/helm.sh and kustomize.sh: builds a Go tool at a
# pinned release from the Go module proxy and installs it atomically.
#   go_tool_install LABEL MIN_GO_MINOR DEST PACKAGE@VERSION [go install flags...]
# LABEL names the tool in messages; DEST is the binary's final path.
go_tool_install() {
  local label=$1 min=$2 dest=$3 pkg=$4 go= candidate minor work
  shift 4
  for candidate in /usr/local/go/bin/go "$(command -v go || true)"; do
    if [ -z "$candidate" ] || [ ! -x "$candidate" ]; then continue; fi
    # The tool's go.mod names the oldest Go that builds it; Debian's go 1.19 is too old.
    minor=$("$candidate" env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
    if [ -n "$minor" ] && [ "$minor" -ge "$min" ]; then go=$candidate; break; fi
  done
  if [ -z "$go" ]; then
    echo "$label setup: no Go >= 1.$min to build $pkg (looked at /usr/local/go/bin/go and PATH); install Go" >&2
    return 1
  fi
  mkdir -p "$(dirname "$dest")"
  work=$(mktemp -d)
  # shellcheck disable=SC2064 # expand now: $work is local
  trap "rm -rf '$work'" EXIT
  echo "$label setup: building $pkg with $("$go" env GOVERSION) (a few minutes, once per machine)"
  GOBIN=$work GOFLAGS=-mod=mod CGO_ENABLED=0 "$go" install "$@" "$pkg"
  # Atomic: a concurrent run sees the old binary or the whole new one.
  install -m 0755 "$work/$(basename "$dest")" "$dest.tmp.$$"
  mv -f "$dest.tmp.$$" "$dest"
}
