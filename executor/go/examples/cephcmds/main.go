// cephcmds: ceph-csi's ExecuteCommandWithNSEnter (internal/util/cephcmds.go
// in ceph/ceph-csi) rewritten with netnsexec, and a small command around it.
//
//	cephcmds [-wait-holder 5s] [-timeout 2m] NETNS_PATH PROGRAM [ARGS...]
//
// ceph-csi today stats netNamespaceFilePath and runs
// `nsenter --net=PATH -- PROGRAM ARGS...` with exec.Command: no context, so
// a hung `rbd map` cannot be stopped, and every failure is one opaque error.
// With the package the call site keeps its signature; what changes:
//   - the context stops the command (its whole process group, SIGKILL);
//   - a refusal (no holder yet, a stale holder, not a network namespace) is a
//     *netnsexec.RefusedError: nothing ran, so retrying is safe, and
//     errors.Is tells which;
//   - no nsenter process, and the namespace is validated by descriptor.
//
// Installing netns-exec as `nsenter` gives the validation with no code
// change at all; this is for plugins that want the rest.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/netns-holder/netns-holder/executor/go/netnsexec"
)

// HolderWait is how long a namespace file that is not published yet is
// waited for (a plugin started before the holder on a fresh node).
var HolderWait = 5 * time.Second

// ExecuteCommandWithNSEnter runs program with args inside the network
// namespace netPath names (ceph-csi's netNamespaceFilePath) and returns its
// standard output and standard error.
func ExecuteCommandWithNSEnter(ctx context.Context, netPath, program string, args ...string) (string, string, error) {
	var stdout, stderr bytes.Buffer
	cmd := netnsexec.CommandContext(ctx, netnsexec.Netns(netPath), program, args...)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitHolder = HolderWait

	err := cmd.Run()
	if err == nil {
		return stdout.String(), stderr.String(), nil
	}
	shown := program + " " + strings.Join(hideSecrets(args), " ")
	var refused *netnsexec.RefusedError
	switch {
	case errors.As(err, &refused):
		// The command never started: the caller may retry as it is.
		err = fmt.Errorf("%s in %s: nothing was run: %w", shown, netPath, err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		err = fmt.Errorf("%s in %s: stopped by its context: %w", shown, netPath, err)
	default:
		err = fmt.Errorf("%s in %s failed: %w", shown, netPath, err)
	}
	return stdout.String(), stderr.String(), err
}

// hideSecrets replaces the values of key and secret arguments
// ("--key=V", "--key V", "secret=V" inside an -o list) for messages.
func hideSecrets(args []string) []string {
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		switch {
		case hideNext:
			out[i], hideNext = "***", false
		case a == "--key" || a == "--secret":
			out[i], hideNext = a, true
		default:
			parts := strings.Split(a, ",")
			for j, p := range parts {
				for _, k := range []string{"--key=", "--secret=", "key=", "secret="} {
					if strings.HasPrefix(p, k) {
						parts[j] = k + "***"
					}
				}
			}
			out[i] = strings.Join(parts, ",")
		}
	}
	return out
}

func main() {
	wait := flag.Duration("wait-holder", HolderWait, "wait this long for an unpublished holder")
	timeout := flag.Duration("timeout", 2*time.Minute, "stop the command after this long")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: cephcmds [-wait-holder D] [-timeout D] NETNS_PATH PROGRAM [ARGS...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 {
		flag.Usage()
		os.Exit(2)
	}
	HolderWait = *wait
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	stdout, stderr, err := ExecuteCommandWithNSEnter(ctx, flag.Arg(0), flag.Arg(1), flag.Args()[2:]...)
	os.Stdout.WriteString(stdout)
	os.Stderr.WriteString(stderr)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "cephcmds:", err)
	var exit *netnsexec.ExitError
	switch {
	case errors.Is(err, netnsexec.ErrRefused):
		os.Exit(125)
	case errors.As(err, &exit) && exit.Signal() == 0:
		os.Exit(exit.ExitCode())
	case errors.As(err, &exit):
		os.Exit(128 + int(exit.Signal()))
	default:
		os.Exit(125)
	}
}
