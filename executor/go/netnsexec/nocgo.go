//go:build !cgo

package netnsexec

// Without cgo the package has no libnetns_exec to call, so it cannot run
// anything. Instead of the list of undefined names the Go compiler would
// print (cmd.go and cabi.go are cgo-only), the build stops on the line
// below, whose error quotes this sentence.
var _ int = "package netnsexec needs cgo: set CGO_ENABLED=1 and install libnetns_exec (pkg-config netns_exec)"
