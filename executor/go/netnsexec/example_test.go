package netnsexec_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/netns-holder/netns-holder/executor/go/netnsexec"
)

// A ceph-csi style call: map an image inside the holder's namespace that
// the cluster's config names, stoppable by the context, with typed errors.
func ExampleCommandContext() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	src := netnsexec.Cluster("ceph-a") // netNamespaceFilePath from /etc/ceph-csi-config/config.json
	cmd := netnsexec.CommandContext(ctx, src, "rbd", "map", "pool/image",
		"--id", "admin", "--keyfile", "/tmp/csi/keys/key", "--options", "noudev")
	cmd.WaitHolder = 10 * time.Second // a holder still starting on a fresh node
	out, err := cmd.Output()

	var exit *netnsexec.ExitError
	switch {
	case err == nil:
		fmt.Printf("mapped at %s", out)
	case errors.Is(err, netnsexec.ErrNotPublished):
		fmt.Fprintln(os.Stderr, "no holder on this node yet; nothing ran, retry later:", err)
	case errors.Is(err, netnsexec.ErrRefused):
		fmt.Fprintln(os.Stderr, "refused, nothing ran:", err)
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintln(os.Stderr, "rbd map took too long; its process group was killed:", err)
	case errors.As(err, &exit):
		fmt.Fprintf(os.Stderr, "rbd map failed with %d: %s\n", exit.ExitCode(), exit.Stderr)
	default:
		fmt.Fprintln(os.Stderr, err)
	}
}

// Streams: anything that is an io.Reader or io.Writer, without limit.
func ExampleCmd_Run() {
	ctx := context.Background()
	cmd := netnsexec.CommandContext(ctx, netnsexec.Socket("/var/lib/kubelet/plugins/rbd.csi.ceph.com/ceph-a.net.sock"),
		"rbd", "export", "pool/image", "-")
	f, err := os.Create("/tmp/image.raw")
	if err != nil {
		return
	}
	defer f.Close()
	cmd.Stdout = f // handed to the command as it is
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}
