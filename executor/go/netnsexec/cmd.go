//go:build cgo

// Cmd runs through libnetns_exec's C ABI (cabi.go): without cgo there is
// nothing to run it with, and nocgo.go stops the build with one sentence.

package netnsexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Identity says how much the holder's <ID>.holder.json must vouch for the
// namespace (the C ABI's netns_exec_identity).
type Identity int

const (
	IdentityDefault   Identity = iota // the library's default policy
	IdentityRequire                   // the record must exist and match
	IdentityIfPresent                 // a record next to the link must match; none is fine
	IdentityOff                       // the record is not read
)

// Namespace is where a command ran.
type Namespace struct {
	Dev, Ino uint64 // the network namespace's identity (net:[Ino])
	// Own: the source named no holder (ceph-csi's empty netNamespaceFilePath)
	// and the command ran in the caller's own namespace, as ceph-csi does.
	Own bool
	// Warning is nil, or a *ConfigWarning (errors.Is ErrNoHolderPath) when
	// Own because the cluster's config entry names no holder for the kind;
	// it is also logged, once per process.
	Warning error
}

// Cmd is one command to run inside a holder's network namespace. Shaped like
// os/exec.Cmd: set the fields, call Run, Output or CombinedOutput once.
// A Cmd is not reused; distinct Cmds may run from any number of goroutines
// at once.
type Cmd struct {
	Source Source
	// Args[0] is the program, searched in the command's PATH (Env's, or the
	// caller's) unless it contains a '/'; the rest are its arguments.
	Args []string
	// The complete environment, "KEY=value"; nil: the caller's (os.Environ()).
	Env []string
	// The working directory; "": the caller's.
	Dir string

	// Stdin: nil reads from the null device; an *os.File is handed to the
	// command as is; anything else is copied to the command through a pipe by
	// a goroutine until EOF or until the command exits. Run waits for that
	// goroutine, as os/exec does.
	Stdin io.Reader
	// Stdout and Stderr: nil discards; an *os.File is handed over as is;
	// anything else is fed from a pipe as the command writes. Nothing is held
	// in memory by the package and there is no size limit. The same writer
	// for both gets one pipe (the order of the command's writes is kept).
	Stdout io.Writer
	Stderr io.Writer

	// How long a holder file or socket that does not exist yet is waited for
	// (woken by inotify). Bounded by the context's deadline. Cancelling the
	// context without a deadline takes effect once this wait ends.
	WaitHolder time.Duration
	Identity   Identity
	// Accept the caller's own network namespace (normally a mistake: work done
	// there dies with the caller's pod).
	AllowOwnNetns bool
	// Accept a namespace file no holder record vouches for and not in a
	// holder directory (/run/netns/NAME, /proc/PID/ns/net). Without it such a
	// file is refused (ErrUntrusted) and nothing runs.
	AllowUnrecordedNetns bool

	// Namespace is set by Run when the command ran.
	Namespace Namespace

	ctx      context.Context
	started  bool
	mu       sync.Mutex // guards started: Run from two goroutines is a bug, reported
	exitSave *tailBuffer
}

// CommandContext returns a Cmd that runs name with args in the network
// namespace src names. When ctx is done before the command exits, its whole
// process group is killed with SIGKILL and Run returns an error that wraps
// ctx.Err() (and the *ExitError of the killed command). When ctx is done
// before the command starts, nothing runs and Run returns a *RefusedError
// that wraps ctx.Err().
func CommandContext(ctx context.Context, src Source, name string, args ...string) *Cmd {
	if ctx == nil {
		panic("netnsexec: nil Context")
	}
	return &Cmd{Source: src, Args: append([]string{name}, args...), ctx: ctx}
}

// Output runs the command and returns its standard output. When the command
// fails and Stderr was nil, the *ExitError carries the tail of its stderr.
func (c *Cmd) Output() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("netnsexec: Stdout already set")
	}
	var stdout bytes.Buffer
	c.Stdout = &stdout
	if c.Stderr == nil {
		c.exitSave = &tailBuffer{max: 32 << 10}
		c.Stderr = c.exitSave
	}
	err := c.Run()
	return stdout.Bytes(), err
}

// CombinedOutput runs the command and returns its standard output and
// standard error together, in the order the command wrote them.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("netnsexec: Stdout already set")
	}
	if c.Stderr != nil {
		return nil, errors.New("netnsexec: Stderr already set")
	}
	var b bytes.Buffer
	c.Stdout = &b
	c.Stderr = &b
	err := c.Run()
	return b.Bytes(), err
}

// Run runs the command and waits for it and for the copying of its
// standard streams.
//
// The error is nil on exit status 0; a *RefusedError (errors.Is ErrRefused)
// when the source was refused and nothing ran; a *StartError when the child
// failed before executing the program; an *ExitError when the command
// exited non-zero or was killed; and, after the context ended the command,
// an error wrapping both ctx.Err() and the *ExitError.
func (c *Cmd) Run() error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return errors.New("netnsexec: already started")
	}
	c.started = true
	c.mu.Unlock()
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background() // a Cmd built as a literal
	}
	if len(c.Args) == 0 || c.Args[0] == "" {
		return &RefusedError{Source: c.Source, Code: "invalid_argument", Cause: ErrInvalidArgument,
			Message: "no command: Args is empty"}
	}
	if err := ctx.Err(); err != nil {
		return &RefusedError{Source: c.Source, Code: "cancelled", Cause: err,
			Message: "the context was done before the command started: " + err.Error()}
	}

	st, err := newStdio(c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		return err
	}
	defer st.closeAll()

	cancel, release, err := cancelOnDone(ctx)
	if err != nil {
		return err
	}
	defer release()

	req := &request{
		baseRequest: baseRequest{
			source:               c.Source,
			env:                  c.Env,
			waitHolder:           c.WaitHolder,
			allowUnrecordedNetns: c.AllowUnrecordedNetns,
		},
		argv:          c.Args,
		dir:           c.Dir,
		stdin:         st.childFd[0],
		stdout:        st.childFd[1],
		stderr:        st.childFd[2],
		identity:      c.Identity,
		allowOwnNetns: c.AllowOwnNetns,
	}
	clamped := false // the holder wait ends at ctx's deadline
	if deadline, ok := ctx.Deadline(); ok && c.WaitHolder > 0 {
		if left := time.Until(deadline); left < req.waitHolder {
			req.waitHolder = max(left, time.Millisecond)
			clamped = true
		}
	}

	st.start()
	res, err := run(req, cancel)
	// The child has exited (or never started): our copies of its ends go, so
	// the output pipes reach EOF and a stdin copier blocked on a full pipe
	// gets EPIPE.
	st.closeChildEnds()
	copyErr := st.wait()
	if err != nil {
		return err
	}
	return c.outcome(ctx, res, copyErr, clamped)
}

func (c *Cmd) outcome(ctx context.Context, res *result, copyErr error, clamped bool) error {
	switch res.outcome {
	case outcomeRefused:
		e := &RefusedError{Source: c.Source, Code: res.errCode, Cause: res.cause(),
			Errno: res.errno, Message: res.message}
		// The holder wait was cut to ctx's deadline: when it ran out
		// unpublished, ctx's deadline is what ended it, so the error is
		// context.DeadlineExceeded too (and still ErrNotPublished).
		if clamped && (res.errc == errNotFound || res.errc == errTimeout) {
			e.Cause = errors.Join(context.DeadlineExceeded, e.Cause)
		}
		if res.errc == errCancelled {
			e.Cause = ctx.Err()
			if e.Cause == nil {
				e.Cause = context.Canceled
			}
		}
		return e
	case outcomeSpawnFailed:
		return &StartError{Name: c.Args[0], Stage: res.stage, Errno: res.errno, code: res.exitCode}
	}

	c.Namespace = Namespace{Dev: res.netnsDev, Ino: res.netnsIno, Own: res.own}
	if res.warning != "" {
		w := &ConfigWarning{Source: c.Source, Message: res.warning}
		c.Namespace.Warning = w
		logOnce(w)
	}
	var exit *ExitError
	switch res.outcome {
	case outcomeExited:
		if res.status != 0 {
			exit = &ExitError{code: res.status}
		}
	case outcomeSignalled, outcomeTimedOut, outcomeCancelled:
		exit = &ExitError{code: res.exitCode, signal: res.signal}
	case outcomeStatusLost:
		return fmt.Errorf("netnsexec: %s: %w", c.Args[0], ErrStatusLost)
	default:
		return fmt.Errorf("netnsexec: unknown outcome %d", int(res.outcome))
	}
	if exit != nil && c.exitSave != nil {
		exit.Stderr = c.exitSave.Bytes()
	}
	if res.outcome == outcomeCancelled {
		cause := ctx.Err()
		if cause == nil {
			cause = context.Canceled
		}
		return fmt.Errorf("netnsexec: %s: process group killed: %w (%w)", c.Args[0], cause, exit)
	}
	if exit != nil {
		return exit
	}
	return copyErr
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tailBuffer) Bytes() []byte { return bytes.Clone(t.buf) }
