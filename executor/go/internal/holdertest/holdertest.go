// Package holdertest starts real netns-holder processes for the module's
// tests: each in a network namespace of its own (unshare --net), publishing
// into a fresh directory. The holder binary comes from $NETNSEXEC_TEST_HOLDER
// (the ctest wrapper sets it to the build's netns-holder).
package holdertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// EnvHolder names the netns-holder binary.
const EnvHolder = "NETNSEXEC_TEST_HOLDER"

// Holder is one running netns-holder.
type Holder struct {
	ID     string
	Dir    string
	Link   string // <ID>.net.ns
	Record string // <ID>.holder.json
	Socket string // <ID>.net.sock ("" without --socket)
	Ino    uint64 // its network namespace's inode
	cmd    *exec.Cmd
}

// Require skips the test without root and fails it when the holder binary
// is not named or missing (a missing fixture is a failure, not a skip).
func Require(t testing.TB) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the holder gets its own network namespace (run through ctest as root)")
	}
	bin := os.Getenv(EnvHolder)
	if bin == "" {
		t.Fatalf("set %s to the netns-holder binary (ctest -L go does)", EnvHolder)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: %v", EnvHolder, err)
	}
	return bin
}

var counter atomic.Int64

// Start starts a holder for a fresh cluster ID in a fresh directory below
// t.TempDir() and waits (inotify) until it has published; it is stopped with
// SIGTERM at the end of the test. extra: e.g. "--socket".
func Start(t testing.TB, extra ...string) *Holder {
	t.Helper()
	bin := Require(t)
	id := fmt.Sprintf("go-%d-%d", os.Getpid(), counter.Add(1))
	dir := filepath.Join(t.TempDir(), "holder")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &Holder{ID: id, Dir: dir, Link: filepath.Join(dir, id+".net.ns"),
		Record: filepath.Join(dir, id+".holder.json")}
	args := append([]string{"--net", "--", bin, "--cluster-id", id, "--dir", dir}, extra...)
	for _, a := range extra {
		if a == "--socket" {
			h.Socket = filepath.Join(dir, id+".net.sock")
		}
	}
	h.cmd = exec.Command("unshare", args...)
	var stderr strings.Builder
	h.cmd.Stderr = &stderr

	// The watch exists before the holder starts, so no publication is missed.
	wait := watch(t, dir)
	defer syscall.Close(wait)
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("start holder: %v", err)
	}
	t.Cleanup(func() { h.Stop() })
	deadline := time.Now().Add(20 * time.Second)
	for !h.published() {
		if time.Now().After(deadline) {
			t.Fatalf("holder %s did not publish in 20 s; stderr: %s", id, stderr.String())
		}
		waitEvent(t, wait, deadline)
	}
	data, err := os.ReadFile(h.Record)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		NetnsIno uint64 `json:"netns_ino"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("record %s: %v", h.Record, err)
	}
	h.Ino = rec.NetnsIno
	return h
}

// Pid is the holder's pid (the unshare process execs it).
func (h *Holder) Pid() int { return h.cmd.Process.Pid }

// Stop ends the holder with SIGTERM (it withdraws its files) and reaps it.
func (h *Holder) Stop() { h.signal(syscall.SIGTERM) }

// Kill ends it with SIGKILL: its files stay behind, stale.
func (h *Holder) Kill() { h.signal(syscall.SIGKILL) }

func (h *Holder) signal(sig syscall.Signal) {
	if h.cmd.ProcessState != nil {
		return
	}
	_ = h.cmd.Process.Signal(sig)
	_ = h.cmd.Wait()
}

func (h *Holder) published() bool {
	for _, p := range []string{h.Record, h.Link, h.Socket} {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			return false
		}
	}
	return true
}

func watch(t testing.TB, dir string) int {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE|syscall.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	return fd
}

// waitEvent sleeps until the inotify descriptor has an event (or the
// deadline), then drains it.
func waitEvent(t testing.TB, fd int, deadline time.Time) {
	ms := time.Until(deadline).Milliseconds()
	if ms <= 0 {
		return
	}
	pfd := struct {
		fd             int32
		events, revent int16
	}{fd: int32(fd), events: 0x1 /* POLLIN */}
	_, _, errno := syscall.Syscall(syscall.SYS_POLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(ms))
	if errno != 0 && errno != syscall.EINTR {
		t.Fatalf("poll: %v", errno)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := syscall.Read(fd, buf); err != nil {
			if !errors.Is(err, syscall.EAGAIN) {
				t.Fatalf("inotify read: %v", err)
			}
			return
		}
	}
}

// NetnsIno is the inode of the calling thread's network namespace.
func NetnsIno(t testing.TB) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/thread-self/ns/net", &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// ConfigEntry is one cluster of a ceph-csi config.json.
type ConfigEntry struct {
	ID          string
	RBD, CephFS string // netNamespaceFilePath of each kind ("" for none)
}

// WriteConfig writes a ceph-csi config.json with the entries and one more,
// "no-holder", whose netNamespaceFilePath is empty. Returns the file.
func WriteConfig(t testing.TB, entries ...ConfigEntry) string {
	t.Helper()
	entries = append(entries, ConfigEntry{ID: "no-holder"})
	var cfg []map[string]any
	for _, e := range entries {
		cfg = append(cfg, map[string]any{
			"clusterID": e.ID, "monitors": []string{"198.18.0.1:6789"},
			"rbd":    map[string]string{"netNamespaceFilePath": e.RBD},
			"cephFS": map[string]string{"netNamespaceFilePath": e.CephFS}})
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "config")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "config.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
