// One Ceph operation through the holder by the Go package netnsexec, its
// context cancelled at a chosen point (scenario cancel; build_cancel_go.sh
// builds it on the host, the guest runs it):
//
//	kernel_cancel_go CLUSTER_ID CONFIG DELAY_MS GRACE_MS map POOL IMAGE MON KEYFILE
//	kernel_cancel_go CLUSTER_ID CONFIG DELAY_MS GRACE_MS mount TARGET MON KEYFILE
//	kernel_cancel_go CLUSTER_ID CONFIG DELAY_MS GRACE_MS unmap DEVICE
//	kernel_cancel_go CLUSTER_ID CONFIG DELAY_MS GRACE_MS umount TARGET
//
// DELAY_MS -1 cancels the context before the call; N cancels it N ms after
// the call began; +N cancels it N ms after the command's process (a child of
// this one) appeared: mid-command, whatever the machine's speed. GRACE_MS is
// CephOptions.CancelGrace (0 is
// the package's default, so 0 here means 1 ns: SIGTERM at once). Prints one
// line:
//
//	CANCEL go OP delay_ms=DELAY_MS grace_ms=G state=STATE error=KIND device=DEV leftover=L
//
// KIND is "none", "cancelled" (a *CancelledError that wraps context.Canceled),
// or "other"; its message goes to stderr. Exit 0 when the call returned.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/netns-holder/netns-holder/executor/go/netnsexec"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kernel_cancel_go CLUSTER_ID CONFIG DELAY_MS GRACE_MS "+
		"map POOL IMAGE MON KEYFILE | mount TARGET MON KEYFILE | unmap DEVICE | umount TARGET")
	os.Exit(2)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func main() {
	if len(os.Args) < 7 {
		usage()
	}
	afterStart := strings.HasPrefix(os.Args[3], "+")
	delay, err1 := strconv.Atoi(strings.TrimPrefix(os.Args[3], "+"))
	grace, err2 := strconv.Atoi(os.Args[4])
	if err1 != nil || err2 != nil {
		usage()
	}
	op, args := os.Args[5], os.Args[6:]
	src := netnsexec.Cluster(os.Args[1]).WithConfig(os.Args[2])
	opts := &netnsexec.CephOptions{Timeout: 90 * time.Second,
		CancelGrace: time.Duration(grace) * time.Millisecond}
	if grace == 0 {
		opts.CancelGrace = time.Nanosecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch {
	case delay < 0:
		cancel()
	case afterStart:
		go func() {
			// Bounded: the operation's own timeout is 90 s.
			for i := 0; i < 18000 && !haveChild(); i++ {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(time.Duration(delay) * time.Millisecond)
			cancel()
		}()
	default:
		time.AfterFunc(time.Duration(delay)*time.Millisecond, cancel)
	}

	var res *netnsexec.CephResult
	var err error
	switch {
	case op == "map" && len(args) == 4:
		res, err = netnsexec.Map(ctx, src, netnsexec.MapRequest{Pool: args[0], Image: args[1],
			Monitors: []string{args[2]}, ID: "admin", Keyfile: args[3]}, opts)
	case op == "mount" && len(args) == 3:
		res, err = netnsexec.Mount(ctx, src.WithKind(netnsexec.CephFS), netnsexec.MountRequest{
			Type: "ceph", Target: args[0], Monitors: []string{args[1]}, ID: "admin", Keyfile: args[2]}, opts)
	case op == "unmap" && len(args) == 1:
		res, err = netnsexec.Unmap(ctx, src, netnsexec.UnmapRequest{Device: args[0]}, opts)
	case op == "umount" && len(args) == 1:
		res, err = netnsexec.Umount(ctx, src.WithKind(netnsexec.CephFS), args[0], opts)
	default:
		usage()
	}

	state, kind, device, leftover := netnsexec.NotCancelled, "none", "", ""
	if res != nil {
		state, device = res.Cancel, res.Device
	}
	var ce *netnsexec.CancelledError
	switch {
	case err == nil:
	case errors.As(err, &ce) && errors.Is(err, context.Canceled):
		kind, state, leftover = "cancelled", ce.State, ce.Leftover
	default:
		kind = "other"
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	fmt.Printf("CANCEL go %s delay_ms=%s grace_ms=%d state=%s error=%s device=%s leftover=%s\n",
		op, os.Args[3], grace, state, kind, orDash(device), orDash(leftover))
}

// haveChild reports whether a process whose parent is this one exists
// (/proc/N/stat: the parent is the second field after the closing parenthesis).
func haveChild() bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == self {
			return true
		}
	}
	return false
}
