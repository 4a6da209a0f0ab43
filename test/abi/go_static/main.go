// A Go program linked statically against the installed libnetns_exec.a
// through the package netnsexec (go_static_test.sh builds it):
//
//	go_static NETNS_FILE EXPECTED_NET_INODE
//
// Runs `readlink /proc/self/ns/net` in the namespace from several goroutines
// at once and checks every answer, then checks that a missing file is a
// refusal, and prints the package's version.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/netns-holder/netns-holder/executor/go/netnsexec"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go_static NETNS_FILE EXPECTED_NET_INODE")
		os.Exit(2)
	}
	ctx := context.Background()
	want := fmt.Sprintf("net:[%s]\n", os.Args[2])

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := netnsexec.CommandContext(ctx, netnsexec.Netns(os.Args[1]), "readlink", "/proc/self/ns/net").Output()
			if err != nil {
				errs <- err
			} else if string(out) != want {
				errs <- fmt.Errorf("ran in %q, want %q", out, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, "go_static:", err)
		os.Exit(1)
	}

	err := netnsexec.CommandContext(ctx, netnsexec.Netns("/nonexistent/static.net.ns"), "true").Run()
	if !errors.Is(err, netnsexec.ErrRefused) || !errors.Is(err, netnsexec.ErrNotPublished) {
		fmt.Fprintf(os.Stderr, "go_static: a missing file was not refused as not published: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("go_static: ok, netnsexec %s\n", netnsexec.Version)
}
