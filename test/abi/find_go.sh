# Sourced: sets $go to a Go toolchain of at least 1.22 (the module's `go`
# line), or fails. Debian's golang-go (1.19) is too old: prefer the toolchain
# in /usr/local/go, else whatever `go` is on PATH if new enough.
go=
for candidate in /usr/local/go/bin/go "$(command -v go || true)"; do
  [ -n "$candidate" ] && [ -x "$candidate" ] || continue
  v=$("$candidate" env GOVERSION 2>/dev/null || true)   # go1.26.8
  minor=$(sed -n 's/^go1\.\([0-9]*\).*/\1/p' <<<"$v")
  if [ -n "$minor" ] && [ "$minor" -ge 22 ]; then go=$candidate; break; fi
done
if [ -z "$go" ]; then
  echo "no Go toolchain 1.22 or newer (looked at /usr/local/go/bin/go and PATH)" >&2
  exit 1
fi
