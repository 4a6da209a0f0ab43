package netnsexec_test

// Against real netns-holder processes (internal/holdertest): every test runs
// real commands in a holder's network namespace and checks what a plugin
// would notice.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/netns-holder/netns-holder/executor/go/internal/holdertest"
	"github.com/netns-holder/netns-holder/executor/go/netnsexec"
)

func nsLine(ino uint64) string { return fmt.Sprintf("net:[%d]\n", ino) }

func readlinkNs(t *testing.T, src netnsexec.Source) (string, *netnsexec.Cmd) {
	t.Helper()
	cmd := netnsexec.CommandContext(context.Background(), src, "readlink", "/proc/self/ns/net")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", src, err)
	}
	return string(out), cmd
}

func TestEverySourceRunsInTheHolderNamespace(t *testing.T) {
	sym := holdertest.Start(t)
	sock := holdertest.Start(t, "--socket")
	cfg := holdertest.WriteConfig(t,
		holdertest.ConfigEntry{ID: sym.ID, RBD: sym.Link},
		holdertest.ConfigEntry{ID: sock.ID, CephFS: sock.Socket})

	for _, tc := range []struct {
		src netnsexec.Source
		ino uint64
	}{
		{netnsexec.Netns(sym.Link), sym.Ino},
		{netnsexec.Socket(sock.Socket), sock.Ino},
		{netnsexec.Netns(sock.Socket), sock.Ino}, // a socket behind a path source
		{netnsexec.Cluster(sym.ID).WithConfig(cfg), sym.Ino},
		{netnsexec.Cluster(sock.ID).WithConfig(cfg).WithKind(netnsexec.CephFS), sock.Ino},
	} {
		out, cmd := readlinkNs(t, tc.src)
		if out != nsLine(tc.ino) {
			t.Errorf("%v: ran in %q, want %q", tc.src, out, nsLine(tc.ino))
		}
		if cmd.Namespace.Ino != tc.ino || cmd.Namespace.Own {
			t.Errorf("%v: Namespace %+v, want ino %d", tc.src, cmd.Namespace, tc.ino)
		}
	}
	if sym.Ino == holdertest.NetnsIno(t) {
		t.Fatal("control: the holder is in our own namespace")
	}
}

func TestNoHolderConfiguredRunsHereAndSaysSo(t *testing.T) {
	h := holdertest.Start(t)
	cfg := holdertest.WriteConfig(t, holdertest.ConfigEntry{ID: h.ID, RBD: h.Link})
	out, cmd := readlinkNs(t, netnsexec.Cluster("no-holder").WithConfig(cfg))
	if out != nsLine(holdertest.NetnsIno(t)) || !cmd.Namespace.Own {
		t.Fatalf("ran in %q (Namespace %+v), want our own namespace reported as Own", out, cmd.Namespace)
	}
	if !errors.Is(cmd.Namespace.Warning, netnsexec.ErrNoHolderPath) {
		t.Fatalf("Namespace.Warning = %v, want ErrNoHolderPath", cmd.Namespace.Warning)
	}
	// With a holder path there is nothing to warn about.
	if _, cmd := readlinkNs(t, netnsexec.Cluster(h.ID).WithConfig(cfg)); cmd.Namespace.Warning != nil {
		t.Fatalf("warning %v for a cluster whose holder is configured", cmd.Namespace.Warning)
	}
}

// writeRawConfig writes a ceph-csi config.json exactly as given.
func writeRawConfig(t *testing.T, text string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "config")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "config.json")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// ceph-csi decodes config.json with encoding/json: "RBD" and
// "NetNamespaceFilePath" are its rbd.netNamespaceFilePath, "ClusterId" its
// clusterID, and of "rbd" and "Rbd" the later wins. The package runs where
// ceph-csi's own commands would: in those holders, never in our namespace.
func TestClusterConfigReadAsCephCSIReadsIt(t *testing.T) {
	a := holdertest.Start(t)
	b := holdertest.Start(t, "--socket")
	text := fmt.Sprintf(`[{"clusterID": %q, "RBD": {"NetNamespaceFilePath": %q}},
		{"ClusterId": %q, "rbd": {"netNamespaceFilePath": %q}, "Rbd": {"netNamespaceFilePath": %q}}]`,
		a.ID, a.Link, b.ID, a.Link, b.Socket)
	cfg := writeRawConfig(t, text)

	// The control: ceph-csi's decoder (the same struct tags) names these paths.
	var decoded []struct {
		ClusterID string `json:"clusterID"`
		RBD       struct {
			NetNamespaceFilePath string `json:"netNamespaceFilePath"`
		} `json:"rbd"`
	}
	if err := json.Unmarshal([]byte(text), &decoded); err != nil {
		t.Fatal(err)
	}
	if len(decoded) != 2 || decoded[0].RBD.NetNamespaceFilePath != a.Link ||
		decoded[1].ClusterID != b.ID || decoded[1].RBD.NetNamespaceFilePath != b.Socket {
		t.Fatalf("encoding/json reads %+v", decoded)
	}

	for _, tc := range []struct {
		id  string
		ino uint64
	}{{a.ID, a.Ino}, {b.ID, b.Ino}} {
		out, cmd := readlinkNs(t, netnsexec.Cluster(tc.id).WithConfig(cfg))
		if out != nsLine(tc.ino) || cmd.Namespace.Own || cmd.Namespace.Warning != nil {
			t.Errorf("cluster %s: ran in %q (Namespace %+v), want its holder's %q", tc.id, out,
				cmd.Namespace, nsLine(tc.ino))
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An entry without a path for the kind: a warning a caller can check, with
// the cluster, file and section in it, and one log line however often it
// recurs.
func TestNoHolderPathIsAWarningLoggedOnce(t *testing.T) {
	var logged lockedBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(prev)
	cfg := writeRawConfig(t, `[{"clusterID": "pathless", "monitors": ["198.18.0.1"],
		"rbd": {"radosNamespace": "t"}, "cephFS": {"netNamespaceFilePath": "/elsewhere.net.ns"}}]`)
	for i := 0; i < 3; i++ {
		out, cmd := readlinkNs(t, netnsexec.Cluster("pathless").WithConfig(cfg))
		if out != nsLine(holdertest.NetnsIno(t)) || !cmd.Namespace.Own {
			t.Fatalf("ran in %q (Namespace %+v), want our own namespace", out, cmd.Namespace)
		}
		var w *netnsexec.ConfigWarning
		if !errors.As(cmd.Namespace.Warning, &w) || !errors.Is(w, netnsexec.ErrNoHolderPath) {
			t.Fatalf("Namespace.Warning = %#v, want a *ConfigWarning wrapping ErrNoHolderPath", cmd.Namespace.Warning)
		}
		for _, part := range []string{`"pathless"`, cfg, "rbd.netNamespaceFilePath"} {
			if !strings.Contains(w.Message, part) {
				t.Errorf("warning %q does not name %s", w.Message, part)
			}
		}
	}
	if n := strings.Count(logged.String(), "level=WARN"); n != 1 || !strings.Contains(logged.String(), "pathless") {
		t.Fatalf("the warning was logged %d times, want once:\n%s", n, logged.String())
	}
}

// A stream much larger than the C ABI's capture limit (1 MiB) goes through
// unchanged, and the package keeps none of it.
func TestStreamsWithoutLimitOrBuffering(t *testing.T) {
	h := holdertest.Start(t)
	const size = 64 << 20
	in := io.LimitReader(rand.New(rand.NewSource(1)), size)
	want := sha256.New()
	tee := io.TeeReader(in, want)
	got := sha256.New()
	counter := &countingWriter{w: got}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cmd := netnsexec.CommandContext(context.Background(), netnsexec.Netns(h.Link), "cat")
	cmd.Stdin = tee
	cmd.Stdout = counter
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if counter.n != size || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Fatalf("got %d bytes (sha %x), want %d (sha %x)", counter.n, got.Sum(nil), size, want.Sum(nil))
	}
	// The test's own reader and hashers allocate a little; a package that
	// buffered the stream would allocate at least its size.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/8 {
		t.Fatalf("%d bytes allocated while streaming %d", alloc, size)
	}
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func TestStdoutStderrAndFiles(t *testing.T) {
	h := holdertest.Start(t)
	src := netnsexec.Netns(h.Link)
	script := "printf out1; printf err1 >&2; printf out2; printf err2 >&2"

	out, err := netnsexec.CommandContext(context.Background(), src, "sh", "-c", script).Output()
	if err != nil || string(out) != "out1out2" {
		t.Fatalf("Output: %q, %v", out, err)
	}
	both, err := netnsexec.CommandContext(context.Background(), src, "sh", "-c", script).CombinedOutput()
	if err != nil || string(both) != "out1err1out2err2" {
		t.Fatalf("CombinedOutput: %q, %v (want the order the command wrote)", both, err)
	}
	var o, e bytes.Buffer
	cmd := netnsexec.CommandContext(context.Background(), src, "sh", "-c", script)
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil || o.String() != "out1out2" || e.String() != "err1err2" {
		t.Fatalf("Run: %q %q %v", o.String(), e.String(), err)
	}

	// *os.File: handed to the command as is.
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := os.Open("/proc/self/cmdline") // any readable file
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd = netnsexec.CommandContext(context.Background(), src, "sh", "-c", "wc -c; readlink /proc/self/fd/1")
	cmd.Stdin, cmd.Stdout = in, f
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(f.Name())
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 2 || lines[1] != f.Name() {
		t.Fatalf("the command's stdout is not the file itself: %q", data)
	}

	// Dir is the working directory; a missing one fails before exec.
	dir := t.TempDir()
	cmd = netnsexec.CommandContext(context.Background(), src, "pwd")
	cmd.Dir = dir
	if out, err := cmd.Output(); err != nil || string(out) != dir+"\n" {
		t.Fatalf("Dir: %q, %v, want %q", out, err, dir)
	}
	cmd = netnsexec.CommandContext(context.Background(), src, "pwd")
	cmd.Dir = filepath.Join(dir, "missing")
	var start *netnsexec.StartError
	if err := cmd.Run(); !errors.As(err, &start) || start.Stage != "chdir" {
		t.Fatalf("missing Dir: %v, want a *StartError at chdir", err)
	}

	// Env is the complete environment.
	cmd = netnsexec.CommandContext(context.Background(), src, "/usr/bin/env")
	cmd.Env = []string{"A=1", "B=two words"}
	out, err = cmd.Output()
	if err != nil || string(out) != "A=1\nB=two words\n" {
		t.Fatalf("env: %q, %v", out, err)
	}
}

func TestExitErrors(t *testing.T) {
	h := holdertest.Start(t)
	src := netnsexec.Netns(h.Link)

	_, err := netnsexec.CommandContext(context.Background(), src, "sh", "-c", "echo why >&2; exit 3").Output()
	var exit *netnsexec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || exit.Signal() != 0 {
		t.Fatalf("exit 3: %v", err)
	}
	if err.Error() != "exit status 3" || string(exit.Stderr) != "why\n" {
		t.Fatalf("exit 3: %q, stderr %q", err.Error(), exit.Stderr)
	}
	if errors.Is(err, netnsexec.ErrRefused) {
		t.Fatal("a failed command is not a refusal")
	}

	err = netnsexec.CommandContext(context.Background(), src, "sh", "-c", "kill -TERM $$").Run()
	if !errors.As(err, &exit) || exit.Signal() != syscall.SIGTERM || exit.ExitCode() != -1 {
		t.Fatalf("killed by SIGTERM: %v", err)
	}
	if err.Error() != "signal: terminated" {
		t.Fatalf("message %q, want os/exec's", err.Error())
	}

	err = netnsexec.CommandContext(context.Background(), src, "no-such-program-netnsexec").Run()
	var start *netnsexec.StartError
	if !errors.As(err, &start) || start.ExitCode() != 127 || start.Stage != "exec" {
		t.Fatalf("not found: %v", err)
	}
	if !errors.Is(err, exec.ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("not found does not match exec.ErrNotFound / fs.ErrNotExist: %v", err)
	}
}

// The command is a shell that starts a background grandchild in its process
// group and waits; cancelling the context must kill both, promptly.
func TestCancelKillsTheProcessGroup(t *testing.T) {
	h := holdertest.Start(t)
	var best time.Duration = time.Hour
	for attempt := 0; attempt < 3; attempt++ {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		cmd := netnsexec.CommandContext(ctx, netnsexec.Netns(h.Link), "sh", "-c",
			"sleep 600 & echo $!; wait")
		cmd.Stdout = pw
		done := make(chan error, 1)
		go func() { done <- cmd.Run(); pw.Close() }()

		line, err := bufio.NewReader(pr).ReadString('\n')
		if err != nil {
			t.Fatalf("no grandchild pid: %v", err)
		}
		go io.Copy(io.Discard, pr)
		grandchild, _ := strconv.Atoi(strings.TrimSpace(line))
		// A pidfd becomes readable when the process ends: an event to wait
		// for, and no confusion with a reused pid.
		pidfd, _, errno := syscall.Syscall(434 /* pidfd_open */, uintptr(grandchild), 0, 0)
		if errno != 0 {
			t.Fatalf("pidfd_open %d: %v", grandchild, errno)
		}
		if exited(int(pidfd), 0) {
			t.Fatalf("control: grandchild %d is not running", grandchild)
		}
		start := time.Now()
		cancel()
		err = <-done
		elapsed := time.Since(start)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run after cancel: %v, want it to wrap context.Canceled", err)
		}
		var exit *netnsexec.ExitError
		if !errors.As(err, &exit) || exit.Signal() != syscall.SIGKILL {
			t.Fatalf("Run after cancel: %v, want an *ExitError for SIGKILL", err)
		}
		// SIGKILL was sent to the group before Run returned; its delivery to
		// the grandchild is asynchronous, hence the bounded wait.
		if !exited(int(pidfd), 5*time.Second) {
			t.Fatalf("grandchild %d survived the cancellation", grandchild)
		}
		syscall.Close(int(pidfd))
		if elapsed < best {
			best = elapsed
		}
		// The command sleeps 600 s: returning within 5 s can only be the
		// cancellation. The limit is wide because this test runs under -race
		// on a shared machine; the goal (well under 100 ms) is a figure,
		// logged here, not a pass/fail line.
		if elapsed > 5*time.Second {
			t.Fatalf("Run returned %v after cancel", elapsed)
		}
	}
	t.Logf("cancel to return: best of 3 %v (goal: under 100ms)", best)
}

func TestDeadlineWrapsDeadlineExceeded(t *testing.T) {
	h := holdertest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := netnsexec.CommandContext(ctx, netnsexec.Netns(h.Link), "sleep", "600").Run()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v, want it to wrap context.DeadlineExceeded", err)
	}
}

// A holder that is not published yet is waited for at most until ctx's
// deadline; when that runs out first, the error is ctx's (and a refusal:
// nothing ran).
func TestDeadlineDuringTheHolderWaitWrapsDeadlineExceeded(t *testing.T) {
	h := holdertest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	cmd := netnsexec.CommandContext(ctx, netnsexec.Netns(filepath.Join(h.Dir, "later.net.ns")), "true")
	cmd.WaitHolder = time.Minute
	err := cmd.Run()
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, netnsexec.ErrRefused) ||
		!errors.Is(err, netnsexec.ErrNotPublished) {
		t.Fatalf("%v, want a refusal wrapping context.DeadlineExceeded and ErrNotPublished", err)
	}
}

func TestCancelledBeforeStartRunsNothing(t *testing.T) {
	h := holdertest.Start(t)
	marker := filepath.Join(t.TempDir(), "marker")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := netnsexec.CommandContext(ctx, netnsexec.Netns(h.Link), "touch", marker).Run()
	if !errors.Is(err, netnsexec.ErrRefused) || !errors.Is(err, context.Canceled) {
		t.Fatalf("%v, want a refusal wrapping context.Canceled", err)
	}
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatal("the command ran")
	}
}

func TestRefusals(t *testing.T) {
	h := holdertest.Start(t)
	stale := holdertest.Start(t)
	stale.Kill() // its link and record stay behind, naming a dead pid
	staleSock := holdertest.Start(t, "--socket")
	staleSock.Kill()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.net.ns")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "marker")

	for _, tc := range []struct {
		name  string
		src   netnsexec.Source
		cause error
		says  string
	}{
		{"not published", netnsexec.Netns(filepath.Join(h.Dir, "nobody.net.ns")), netnsexec.ErrNotPublished, "nobody.net.ns"},
		{"stale holder", netnsexec.Netns(stale.Link), netnsexec.ErrStaleHolder, stale.ID},
		{"dead socket", netnsexec.Socket(staleSock.Socket), netnsexec.ErrNotPublished, staleSock.ID},
		{"own namespace", netnsexec.Netns("/proc/self/ns/net"), netnsexec.ErrOwnNamespace, "/proc/self/ns/net"},
		{"wrong type", netnsexec.Netns("/proc/self/ns/mnt"), netnsexec.ErrWrongType, "/proc/self/ns/mnt"},
		{"not a namespace", netnsexec.Netns(plain), netnsexec.ErrNotANamespace, plain},
		{"unknown cluster", netnsexec.Cluster("zz").WithConfig(holdertest.WriteConfig(t, holdertest.ConfigEntry{ID: h.ID, RBD: h.Link})),
			netnsexec.ErrNotPublished, "zz"},
		{"no source", netnsexec.Source{}, netnsexec.ErrInvalidArgument, "source"},
	} {
		err := netnsexec.CommandContext(context.Background(), tc.src, "touch", marker).Run()
		var refused *netnsexec.RefusedError
		if !errors.As(err, &refused) || !errors.Is(err, netnsexec.ErrRefused) {
			t.Errorf("%s: %v, want a *RefusedError", tc.name, err)
			continue
		}
		if !errors.Is(err, tc.cause) {
			t.Errorf("%s: cause %v (code %q), want %v; %v", tc.name, refused.Cause, refused.Code, tc.cause, err)
		}
		if !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %q does not name %q", tc.name, err.Error(), tc.says)
		}
		if _, serr := os.Stat(marker); serr == nil {
			t.Fatalf("%s: the command ran", tc.name)
		}
	}
	// The errno is there for errors.Is too.
	err := netnsexec.CommandContext(context.Background(),
		netnsexec.Netns(filepath.Join(h.Dir, "nobody.net.ns")), "true").Run()
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("not published: %v does not match fs.ErrNotExist", err)
	}
	// Control: the same command through the live holder runs.
	if err := netnsexec.CommandContext(context.Background(), netnsexec.Netns(h.Link), "touch", marker).Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("control: the command did not run")
	}
}

// /run/netns/NAME and /proc/PID/ns/net have no holder record and are in no
// holder directory: refused (ErrUntrusted, the command did not run, the
// message names the path and the opt-in) unless Cmd.AllowUnrecordedNetns is
// set; with it, the command runs in that namespace (the control).
func TestUnrecordedNamespaceFileNeedsTheOptIn(t *testing.T) {
	h := holdertest.Start(t)
	name := fmt.Sprintf("go-unrec-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add %s: %v: %s", name, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "delete", name).Run() })
	var named syscall.Stat_t
	if err := syscall.Stat("/run/netns/"+name, &named); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "marker")
	for _, tc := range []struct {
		path string
		ino  uint64
	}{
		{"/run/netns/" + name, named.Ino},
		{fmt.Sprintf("/proc/%d/ns/net", h.Pid()), h.Ino},
	} {
		cmd := netnsexec.CommandContext(context.Background(), netnsexec.Netns(tc.path), "touch", marker)
		err := cmd.Run()
		if !errors.Is(err, netnsexec.ErrRefused) || !errors.Is(err, netnsexec.ErrUntrusted) {
			t.Errorf("%s: %v, want a refusal as untrusted", tc.path, err)
		}
		for _, says := range []string{`"` + tc.path + `"`, "no holder record vouches", "AllowUnrecordedNetns"} {
			if err != nil && !strings.Contains(err.Error(), says) {
				t.Errorf("%s: %q does not name %q", tc.path, err.Error(), says)
			}
		}
		if _, serr := os.Stat(marker); serr == nil {
			t.Fatalf("%s: the command ran without the opt-in", tc.path)
		}
		cmd = netnsexec.CommandContext(context.Background(), netnsexec.Netns(tc.path), "readlink", "/proc/self/ns/net")
		cmd.AllowUnrecordedNetns = true
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s with AllowUnrecordedNetns: %v", tc.path, err)
		}
		if out.String() != nsLine(tc.ino) {
			t.Errorf("%s with AllowUnrecordedNetns: ran in %q, want %q", tc.path, out.String(), nsLine(tc.ino))
		}
	}
}

// A namespace file in a directory anyone may write could have been planted
// by anyone: refused as untrusted, with the directory named.
func TestUntrustedDirectoryIsRefused(t *testing.T) {
	h := holdertest.Start(t)
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	link := filepath.Join(dir, h.ID+".net.ns")
	target, err := os.Readlink(h.Link)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(h.Record)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, h.ID+".holder.json"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	err = netnsexec.CommandContext(context.Background(), netnsexec.Netns(link), "true").Run()
	if err == nil {
		// The very regression this test guards: the command ran from a
		// directory anyone could have planted the link in.
		t.Fatalf("the command ran from %s, a directory anyone may write (mode 0777)", dir)
	}
	var refused *netnsexec.RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, netnsexec.ErrUntrusted) {
		t.Fatalf("%v, want a refusal with cause ErrUntrusted", err)
	}
	if !strings.Contains(err.Error(), dir) {
		t.Fatalf("%q does not name the directory %s", err, dir)
	}
}

// Many goroutines at once, each checking where its command ran; afterwards
// no thread of this process is in another namespace.
func TestGoroutinesAndThreadsStayPut(t *testing.T) {
	a := holdertest.Start(t)
	b := holdertest.Start(t, "--socket")
	ours := holdertest.NetnsIno(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			src, ino := netnsexec.Netns(a.Link), a.Ino
			if i%2 == 1 {
				src, ino = netnsexec.Socket(b.Socket), b.Ino
			}
			for j := 0; j < 4; j++ {
				out, err := netnsexec.CommandContext(context.Background(), src, "readlink", "/proc/self/ns/net").Output()
				if err != nil || string(out) != nsLine(ino) {
					errs <- fmt.Errorf("goroutine %d: %q %v, want %q", i, out, err, nsLine(ino))
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		var st syscall.Stat_t
		if err := syscall.Stat("/proc/self/task/"+task.Name()+"/ns/net", &st); err != nil {
			continue // the thread exited meanwhile
		}
		if st.Ino != ours {
			t.Errorf("thread %s is in net:[%d], not ours net:[%d]", task.Name(), st.Ino, ours)
		}
	}
}

// exited polls a pidfd for up to timeout.
func exited(pidfd int, timeout time.Duration) bool {
	fds := []pollFd{{fd: int32(pidfd), events: 0x1}}
	n, _, errno := syscall.Syscall(syscall.SYS_POLL, uintptr(unsafe.Pointer(&fds[0])), 1,
		uintptr(timeout.Milliseconds()))
	return errno == 0 && n == 1
}

type pollFd struct {
	fd              int32
	events, revents int16
}
