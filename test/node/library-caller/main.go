// The library caller of the node suite's library-mode scenario: what ceph-csi's
// patched plugin does for `rbd map`, in a program of its own. It is linked
// statically against libnetns_exec through the package netnsexec (as
// test/abi/go_static is) and runs in the plugin pod with no netns-exec, no
// shim and no nsenter on its PATH:
//
//	netns-library-caller CONFIG CLUSTER_ID CMD [ARGS...]
//
// It finds the cluster's netNamespaceFilePath in ceph-csi's config CONFIG (the
// holder chart's config.json in library mode: the holder's <ID>.net.sock), has
// the library run CMD in that holder's namespace, passes CMD's output through
// and exits with its status; a refusal exits 125 with the library's message.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/netns-holder/netns-holder/executor/go/netnsexec"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: netns-library-caller CONFIG CLUSTER_ID CMD [ARGS...]")
		os.Exit(2)
	}
	src := netnsexec.Cluster(os.Args[2]).WithConfig(os.Args[1])
	cmd := netnsexec.CommandContext(context.Background(), src, os.Args[3], os.Args[4:]...)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	var exit *netnsexec.ExitError
	switch {
	case err == nil:
		if cmd.Namespace.Own {
			// The patched plugin runs a cluster without a holder in its own
			// namespace; here that would make the test prove nothing.
			fmt.Fprintf(os.Stderr, "netns-library-caller: %s has no holder in %s: the command ran in the caller's own namespace\n", os.Args[2], os.Args[1])
			os.Exit(125)
		}
	case errors.Is(err, netnsexec.ErrRefused):
		fmt.Fprintln(os.Stderr, "netns-library-caller:", err)
		os.Exit(125)
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	default:
		fmt.Fprintln(os.Stderr, "netns-library-caller:", err)
		os.Exit(1)
	}
}
