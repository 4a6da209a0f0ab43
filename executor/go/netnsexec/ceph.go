//go:build cgo

package netnsexec

import (
	"context"
	"fmt"
	"time"
)

// Ceph operations: Map, Unmap, Mount and Umount run what ceph-csi runs (rbd
// map/unmap with krbd, mount -t ceph, ceph-fuse, mount -t nfs, umount)
// inside the source's namespace, serialized per volume, through the same
// code as `netns-exec map|unmap|mount|umount`.
//
// Cancelling ctx (or its deadline) never leaves half a mapping: before the
// command started, nothing runs (*CancelledError, State NotStarted); once it
// has started it is not killed at once but given CephOptions.CancelGrace to
// finish, then SIGTERM, KillGrace, SIGKILL; then a map or mount that made
// its device or mount is undone (rbd unmap / umount) before the call
// returns a *CancelledError wrapping ctx.Err() whose State says Undone,
// NothingLeft or LeftBehind (Leftover names what is still there). An Unmap
// or Umount that finished returns its own result (nil error on success):
// what the caller asked for is done.

// CancelState is how a cancelled or timed-out operation ended.
type CancelState int

const (
	NotCancelled CancelState = iota // not cancelled, not timed out
	NotStarted                      // cancelled before the command started: nothing ran
	Undone                          // the mapping or mount it made was undone
	NothingLeft                     // it failed or was stopped and left nothing
	LeftBehind                      // the undo failed, or an unmap/umount was killed: see Leftover
	Completed                       // an unmap/umount finished after the cancel
)

func (s CancelState) String() string {
	if n := cancelStateName(s); n != "" {
		return n
	}
	return fmt.Sprintf("CancelState(%d)", int(s))
}

// CephOptions: how long an operation may take and where things are on this
// node. Zero values take the defaults (timeout 2m, cancel grace 30s, kill
// grace 2s; programs from PATH; /sys/bus/rbd, /proc/filesystems,
// /proc/self/mountinfo, /run/netns-exec/volumes).
type CephOptions struct {
	Timeout     time.Duration
	CancelGrace time.Duration
	KillGrace   time.Duration
	WaitHolder  time.Duration
	Env         []string // nil: os.Environ()
	// As Cmd.AllowUnrecordedNetns: accept a namespace file no holder record
	// vouches for (/run/netns/NAME, /proc/PID/ns/net).
	AllowUnrecordedNetns bool

	RBDProgram, MountProgram, UmountProgram, CephFuseProgram, ModprobeProgram string
	SysBusRBD, ProcFilesystems, ProcMountinfo, LockDir                        string
}

// MapRequest is `rbd map` of POOL[/NS]/IMAGE[@SNAP].
type MapRequest struct {
	Pool, RadosNamespace, Image, Snapshot string
	Monitors                              []string
	ID                                    string // cephx user without "client."
	Keyfile                               string // a file holding the key, or
	Key                                   []byte // the key itself (handed over on stdin)
	Options                               string // krbd map options
	ReadOnly                              bool
}

// UnmapRequest is `rbd unmap DEVICE|SPEC`.
type UnmapRequest struct {
	Device  string // /dev/rbdN or pool/image
	Options string
}

// MountRequest is a kernel CephFS (Type "" or "ceph"), ceph-fuse or NFS mount.
type MountRequest struct {
	Type     string
	Target   string
	Monitors []string
	Path     string // CephFS root or NFS export; "" is "/"
	FSName   string
	Server   string // NFS
	Options  string
	ID       string
	Keyfile  string
	Key      []byte
	CephConf string // ceph-fuse: -c FILE
}

// CephResult is a finished operation.
type CephResult struct {
	Device      string // Map: the device ("/dev/rbd0")
	AlreadyDone bool   // already mapped/mounted, or already gone: nothing ran
	Cancel      CancelState
	Stdout      []byte
	Stderr      []byte
}

// CancelledError: ctx was done (cancelled or past its deadline) during a
// Ceph operation. errors.Is(err, context.Canceled) or
// context.DeadlineExceeded holds; State says what is left on the node.
type CancelledError struct {
	Op       string // "map", "unmap", "mount", "umount"
	State    CancelState
	Leftover string // LeftBehind: the device or mount point still there
	Message  string // one line: what happened and, if anything is left, what to run
	Err      error  // ctx.Err()
}

func (e *CancelledError) Error() string {
	return "netnsexec: " + e.Op + ": " + e.Err.Error() + ": " + e.State.String() + ": " + e.Message
}

func (e *CancelledError) Unwrap() error { return e.Err }

// Undone reports whether what the operation made was undone, or nothing was
// made: the node is as before the call.
func (e *CancelledError) Undone() bool {
	return e.State == NotStarted || e.State == Undone || e.State == NothingLeft
}

// CephError: the operation ran and failed (not cancelled).
type CephError struct {
	Op       string
	Failure  string // the C ABI's error code, or "timed_out" for CephOptions.Timeout
	ExitCode int    // netns-exec's exit code for it
	State    CancelState
	Leftover string
	Message  string
	Stderr   []byte
}

func (e *CephError) Error() string { return "netnsexec: " + e.Op + ": " + e.Message }

func Map(ctx context.Context, src Source, r MapRequest, o *CephOptions) (*CephResult, error) {
	f := [][2]string{{"pool", r.Pool}, {"image", r.Image}, {"rados_namespace", r.RadosNamespace},
		{"snap", r.Snapshot}, {"id", r.ID}, {"options", r.Options}}
	if r.Keyfile != "" {
		f = append(f, [2]string{"keyfile", r.Keyfile})
	}
	if r.ReadOnly {
		f = append(f, [2]string{"read_only", "1"})
	}
	for _, m := range r.Monitors {
		f = append(f, [2]string{"mon", m})
	}
	return cephOp(ctx, src, "map", cephMap, f, r.Key, o)
}

func Unmap(ctx context.Context, src Source, r UnmapRequest, o *CephOptions) (*CephResult, error) {
	return cephOp(ctx, src, "unmap", cephUnmap,
		[][2]string{{"device", r.Device}, {"options", r.Options}}, nil, o)
}

func Mount(ctx context.Context, src Source, r MountRequest, o *CephOptions) (*CephResult, error) {
	typ, path := r.Type, r.Path
	if typ == "" {
		typ = "ceph"
	}
	if path == "" {
		path = "/"
	}
	f := [][2]string{{"type", typ}, {"target", r.Target}, {"path", path}, {"fs", r.FSName},
		{"server", r.Server}, {"options", r.Options}, {"id", r.ID}, {"ceph_conf", r.CephConf}}
	if r.Keyfile != "" {
		f = append(f, [2]string{"keyfile", r.Keyfile})
	}
	for _, m := range r.Monitors {
		f = append(f, [2]string{"mon", m})
	}
	return cephOp(ctx, src, "mount", cephMount, f, r.Key, o)
}

func Umount(ctx context.Context, src Source, target string, o *CephOptions) (*CephResult, error) {
	return cephOp(ctx, src, "umount", cephUmount, [][2]string{{"target", target}}, nil, o)
}

func cephOp(ctx context.Context, src Source, name string, op int, fields [][2]string,
	key []byte, o *CephOptions) (*CephResult, error) {
	if ctx == nil {
		panic("netnsexec: nil Context")
	}
	if o == nil {
		o = &CephOptions{}
	}
	if err := ctx.Err(); err != nil {
		return nil, &CancelledError{Op: name, State: NotStarted, Err: err,
			Message: "the context was done before the command started; nothing ran"}
	}
	for _, p := range [][2]string{{"rbd_program", o.RBDProgram}, {"mount_program", o.MountProgram},
		{"umount_program", o.UmountProgram}, {"ceph_fuse_program", o.CephFuseProgram},
		{"modprobe_program", o.ModprobeProgram}, {"sys_bus_rbd", o.SysBusRBD},
		{"proc_filesystems", o.ProcFilesystems}, {"proc_mountinfo", o.ProcMountinfo},
		{"lock_dir", o.LockDir}} {
		if p[1] != "" {
			fields = append(fields, p)
		}
	}
	cancel, release, err := cancelOnDone(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	res, err := runCeph(&cephRequest{
		baseRequest: baseRequest{source: src, env: o.Env, waitHolder: o.WaitHolder,
			allowUnrecordedNetns: o.AllowUnrecordedNetns},
		op: op, fields: fields, key: key,
		timeout: o.Timeout, cancelGrace: o.CancelGrace, killGrace: o.KillGrace}, cancel)
	if err != nil {
		return nil, err
	}
	out := &CephResult{Device: res.device, AlreadyDone: res.alreadyDone, Cancel: res.cancelState,
		Stdout: res.stdout, Stderr: res.stderr}
	switch {
	case res.cancelState == NotStarted && ctx.Err() != nil,
		res.outcome == outcomeCancelled:
		return out, &CancelledError{Op: name, State: res.cancelState, Leftover: res.leftover,
			Message: res.message, Err: ctx.Err()}
	case res.outcome == outcomeRefused:
		return out, &RefusedError{Source: src, Code: res.errCode, Cause: res.cause(),
			Errno: res.errno, Message: res.message}
	case res.exitCode != 0:
		failure := res.errCode
		if res.outcome == outcomeTimedOut {
			failure = "timed_out"
		}
		return out, &CephError{Op: name, Failure: failure, ExitCode: res.exitCode,
			State: res.cancelState, Leftover: res.leftover, Message: res.message, Stderr: res.stderr}
	}
	return out, nil
}
