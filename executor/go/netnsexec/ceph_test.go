package netnsexec_test

// Map, Unmap, Mount and Umount under a cancelled context, against a real
// holder, with stand-in rbd/mount/umount programs that take their time and
// then "map" or "mount" by writing the sysfs and mountinfo files the library
// reads (CephOptions points it at them; this host has no krbd).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netns-holder/netns-holder/executor/go/internal/holdertest"
	"github.com/netns-holder/netns-holder/executor/go/netnsexec"
)

type cephNode struct {
	dir, log, dev, target string
	opts                  *netnsexec.CephOptions
}

func newCephNode(t *testing.T) *cephNode {
	t.Helper()
	dir := t.TempDir()
	n := &cephNode{dir: dir, log: filepath.Join(dir, "log"), dev: filepath.Join(dir, "sys/devices/0"),
		target: filepath.Join(dir, "mnt")}
	must(t, os.MkdirAll(filepath.Join(dir, "sys/devices"), 0o755))
	must(t, os.MkdirAll(n.target, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "filesystems"), []byte("nodev\tceph\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "mountinfo"),
		[]byte("22 1 0:21 / / rw - ext4 /dev/sda1 rw\n"), 0o644))
	n.opts = &netnsexec.CephOptions{
		CancelGrace: 10 * time.Second, KillGrace: 2 * time.Second, Timeout: 20 * time.Second,
		RBDProgram: filepath.Join(dir, "rbd"), MountProgram: filepath.Join(dir, "mount"),
		UmountProgram: filepath.Join(dir, "umount"), ModprobeProgram: "/bin/false",
		SysBusRBD: filepath.Join(dir, "sys"), ProcFilesystems: filepath.Join(dir, "filesystems"),
		ProcMountinfo: filepath.Join(dir, "mountinfo"), LockDir: filepath.Join(dir, "locks"),
	}
	d := n.dev
	mapNow := "mkdir -p " + d + "; echo rbd > " + d + "/pool; echo img > " + d + "/name; echo - > " +
		d + "/current_snap; : > " + d + "/pool_ns; echo '198.18.0.10:6789 name=admin rbd img -' > " +
		d + "/config_info; echo map-done >> " + n.log + "; echo /dev/rbd0"
	script(t, n.opts.RBDProgram, "case \" $* \" in\n"+
		"*\" unmap \"*) echo \"unmap $2\" >> "+n.log+"; sleep 1; rm -rf "+d+"; echo unmap-done >> "+n.log+" ;;\n"+
		"*\" map \"*) echo map-start >> "+n.log+"; sleep 1; "+mapNow+" ;;\nesac")
	mi := n.opts.ProcMountinfo
	script(t, n.opts.MountProgram, "echo mount-start >> "+n.log+"; sleep 1; echo '90 22 0:50 / "+
		n.target+" rw - ceph 198.18.0.10:6789:/ rw' >> "+mi+"; echo mount-done >> "+n.log)
	script(t, n.opts.UmountProgram, "echo \"umount $1\" >> "+n.log+"; grep -v ' "+n.target+" ' "+mi+
		" > "+mi+".new; mv "+mi+".new "+mi)
	return n
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func script(t *testing.T, path, body string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
}

func (n *cephNode) logText() string {
	b, _ := os.ReadFile(n.log)
	return string(b)
}

// cancelWhen cancels the returned context once line shows in the log.
func (n *cephNode) cancelWhen(t *testing.T, line string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		defer cancel()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			if strings.Contains(n.logText(), line) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return ctx
}

var mapReq = netnsexec.MapRequest{Pool: "rbd", Image: "img", Monitors: []string{"198.18.0.10:6789"},
	ID: "admin", Keyfile: "/etc/ceph/keyfile"}

func TestCephCancelledBeforeStartRunsNothing(t *testing.T) {
	h := holdertest.Start(t)
	n := newCephNode(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := netnsexec.Map(ctx, netnsexec.Netns(h.Link), mapReq, n.opts)
	var ce *netnsexec.CancelledError
	if !errors.As(err, &ce) || !errors.Is(err, context.Canceled) || ce.State != netnsexec.NotStarted || !ce.Undone() {
		t.Fatalf("want a CancelledError (not_started) wrapping context.Canceled, got %v", err)
	}
	if got := n.logText(); got != "" {
		t.Fatalf("nothing may run, the log says %q", got)
	}
}

func TestCephMapCancelledByContextIsUndone(t *testing.T) {
	h := holdertest.Start(t)
	n := newCephNode(t)
	ok, err := netnsexec.Map(context.Background(), netnsexec.Netns(h.Link), mapReq, n.opts)
	if err != nil || ok.Device != "/dev/rbd0" {
		t.Fatalf("an uncancelled map: %+v, %v", ok, err)
	}
	if _, err := netnsexec.Unmap(context.Background(), netnsexec.Netns(h.Link),
		netnsexec.UnmapRequest{Device: "/dev/rbd0"}, n.opts); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(n.log, nil, 0o644))

	res, err := netnsexec.Map(n.cancelWhen(t, "map-start"), netnsexec.Netns(h.Link), mapReq, n.opts)
	var ce *netnsexec.CancelledError
	if !errors.As(err, &ce) || !errors.Is(err, context.Canceled) {
		t.Fatalf("want a CancelledError wrapping context.Canceled, got %v", err)
	}
	if ce.State != netnsexec.Undone || !ce.Undone() || res.Device != "" {
		t.Fatalf("state %v, device %q: %s", ce.State, res.Device, ce.Message)
	}
	if got := n.logText(); got != "map-start\nmap-done\nunmap /dev/rbd0\nunmap-done\n" {
		t.Fatalf("the map must finish and then be unmapped; log:\n%s", got)
	}
	if _, err := os.Stat(n.dev); !os.IsNotExist(err) {
		t.Fatalf("the device is still mapped: %v", err)
	}
	if !strings.Contains(ce.Message, "/dev/rbd0") {
		t.Fatalf("the message must name the device: %s", ce.Message)
	}
}

func TestCephMountDeadlineIsUndoneAndUnmapCompletes(t *testing.T) {
	h := holdertest.Start(t)
	n := newCephNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := netnsexec.Mount(ctx, netnsexec.Netns(h.Link), netnsexec.MountRequest{Target: n.target,
		Monitors: []string{"198.18.0.10:6789"}, ID: "admin", Keyfile: "/etc/ceph/keyfile"}, n.opts)
	var ce *netnsexec.CancelledError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) || ce.State != netnsexec.Undone {
		t.Fatalf("want an undone CancelledError wrapping DeadlineExceeded, got %v", err)
	}
	if mi, _ := os.ReadFile(n.opts.ProcMountinfo); strings.Contains(string(mi), n.target) {
		t.Fatalf("still mounted:\n%s", mi)
	}

	// An unmap cancelled while it runs completes: nil error, the device gone.
	if _, err := netnsexec.Map(context.Background(), netnsexec.Netns(h.Link), mapReq, n.opts); err != nil {
		t.Fatal(err)
	}
	res, err := netnsexec.Unmap(n.cancelWhen(t, "unmap /dev/rbd0"), netnsexec.Netns(h.Link),
		netnsexec.UnmapRequest{Device: "/dev/rbd0"}, n.opts)
	if err != nil || res.Cancel != netnsexec.Completed {
		t.Fatalf("want a completed unmap, got %+v, %v", res, err)
	}
	if _, err := os.Stat(n.dev); !os.IsNotExist(err) {
		t.Fatalf("the device is still mapped: %v", err)
	}
}
