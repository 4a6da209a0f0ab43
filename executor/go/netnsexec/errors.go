package netnsexec

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// ErrRefused is what every *RefusedError is (errors.Is): the source was not
// accepted and nothing ran. Retrying is safe.
var ErrRefused = errors.New("netnsexec: refused, nothing ran")

// Causes of a refusal, for errors.Is on the error Run returns. Each
// *RefusedError has exactly one (Cause); the message says which path or
// cluster, which step, the errno text and what to check.
var (
	// The namespace file, socket, cluster entry or config file does not exist
	// (yet): the holder has not published, or is not running on this node.
	ErrNotPublished = errors.New("not published")
	// The holder the file names is gone (dangling link, dead pid, a reused
	// pid, nobody listening behind the socket).
	ErrStaleHolder = errors.New("stale holder")
	// The holder's record does not describe what was opened (another
	// namespace, cluster ID, boot or pid namespace).
	ErrIdentityMismatch = errors.New("identity mismatch")
	// The namespace is the caller's own: work done there would die with the
	// caller (see Cmd.AllowOwnNetns).
	ErrOwnNamespace = errors.New("own network namespace")
	// The file is not a namespace at all (not on nsfs).
	ErrNotANamespace = errors.New("not a namespace")
	// A namespace, but not a network namespace.
	ErrWrongType = errors.New("not a network namespace")
	// The file, a directory above it or the socket's server failed the
	// provenance rules: not owned by root, or writable by others.
	ErrUntrusted = errors.New("untrusted file")
	// A bad argument: cluster ID, config content, an empty command, no source.
	ErrInvalidArgument = errors.New("invalid argument")
	// A holder's socket or record spoke a protocol or version we do not know.
	ErrProtocol    = errors.New("protocol error")
	ErrUnsupported = errors.New("unsupported version")
	// Waiting for the holder (Cmd.WaitHolder) ran out.
	ErrTimeout = errors.New("timed out waiting for the holder")
	// The cluster's <ID>.lock is held by another holder: netns-holder's
	// refusal to start a second holder for one cluster on a node
	// (NETNS_EXEC_ERR_BUSY). No check a Cmd runs gives it today; it is here
	// so that every code of the C ABI has its error, and errors.Is works
	// should one come to.
	ErrBusy = errors.New("busy")
	// Any other failed system call on the way.
	ErrSystem = errors.New("system error")
)

// ErrStatusLost: the command ran, but its exit status was collected by
// someone else in this process (a SIGCHLD handler or a wait for any child),
// so whether it succeeded is unknown. Not a refusal: do not simply retry.
var ErrStatusLost = errors.New("the command ran but its exit status was reaped elsewhere")

// RefusedError: the namespace source was refused; the command never started.
type RefusedError struct {
	Source  Source
	Code    string        // the C ABI's name: "not_found", "stale_holder", ...
	Cause   error         // ErrNotPublished, ErrStaleHolder, ... or the context's error
	Errno   syscall.Errno // the failed system call's errno, 0 if none
	Message string        // one line: what, where, errno text, what to check
}

func (e *RefusedError) Error() string {
	return "netnsexec: " + e.Source.String() + ": refused, nothing ran: " + e.Message
}

// Is makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Unwrap gives the cause and, when a system call failed, its errno (so
// errors.Is(err, fs.ErrNotExist) works too).
func (e *RefusedError) Unwrap() []error {
	out := []error{e.Cause}
	if e.Errno != 0 {
		out = append(out, e.Errno)
	}
	return out
}

// StartError: the namespace was accepted and the child was created, but it
// failed before the command was executed (setns refused, the program not
// found or not executable). The command never ran.
type StartError struct {
	Name  string        // Args[0]
	Stage string        // "exec", "setns", "stdio", ...
	Errno syscall.Errno // why
	code  int
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("netnsexec: %q: %s: %v", e.Name, e.Stage, e.Errno)
	if e.code == 127 {
		msg += ": command not found"
	}
	return msg
}

// ExitCode is what a shell would report: 127 not found, 126 not
// executable, 125 any earlier stage.
func (e *StartError) ExitCode() int { return e.code }

// Unwrap gives the errno (errors.Is(err, fs.ErrNotExist), ...).
func (e *StartError) Unwrap() error { return e.Errno }

// Is makes a program that was not found match exec.ErrNotFound, as
// os/exec's LookPath failure would.
func (e *StartError) Is(target error) bool { return target == exec.ErrNotFound && e.code == 127 }

// ExitError: the command ran and did not succeed. As with os/exec, its
// Error() is "exit status N" or "signal: killed".
type ExitError struct {
	code   int
	signal syscall.Signal
	// Stderr holds the tail of the command's standard error when Output
	// captured it (Cmd.Stderr was nil).
	Stderr []byte
}

// ExitCode is the command's exit status, or -1 when a signal ended it.
func (e *ExitError) ExitCode() int {
	if e.signal != 0 {
		return -1
	}
	return e.code
}

// Signal is the signal that ended the command, 0 if it exited.
func (e *ExitError) Signal() syscall.Signal { return e.signal }

func (e *ExitError) Error() string {
	if e.signal != 0 {
		return "signal: " + e.signal.String()
	}
	return fmt.Sprintf("exit status %d", e.code)
}
