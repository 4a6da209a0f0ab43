package netnsexec

// The one file that talks to libnetns_exec's C ABI. Everything the C side
// needs is copied into C memory here and freed before returning; no Go
// pointer is kept by C.

/*
#cgo pkg-config: netns_exec
#include <stdlib.h>
#include <netns_exec/netns_exec.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// baseRequest is what a command run and a Ceph operation both ask of the C
// request: where to run, with which environment, how long to wait for the
// holder.
type baseRequest struct {
	source               Source
	env                  []string // nil: os.Environ()
	waitHolder           time.Duration
	allowUnrecordedNetns bool
}

// request is what one run asks of the C ABI.
type request struct {
	baseRequest
	argv          []string
	dir           string
	stdin, stdout int // descriptors for the child's 0, 1
	stderr        int // and 2
	identity      Identity
	allowOwnNetns bool
}

// result is what became of it.
type result struct {
	outcome  C.netns_exec_outcome
	exitCode int // the C ABI's: the command's own, 125, 126, 127, 128+N
	status   int
	signal   syscall.Signal
	errc     C.netns_exec_errc
	errCode  string
	errno    syscall.Errno
	stage    string
	message  string
	netnsDev uint64
	netnsIno uint64
	own      bool
	warning  string
}

// cancelHandle is the C ABI's cancellation handle: fire() may be called from
// any goroutine while run() is in progress.
type cancelHandle struct{ c *C.netns_exec_cancel }

func newCancelHandle() (*cancelHandle, error) {
	c, err := C.netns_exec_cancel_new()
	if c == nil {
		return nil, fmt.Errorf("netnsexec: netns_exec_cancel_new: %w", err)
	}
	return &cancelHandle{c: c}, nil
}

func (h *cancelHandle) fire() { C.netns_exec_cancel_fire(h.c) }
func (h *cancelHandle) free() { C.netns_exec_cancel_free(h.c) }

// cancelOnDone returns a handle that fires when ctx is done, and the function
// that releases it: the watcher has stopped before the handle is freed, so it
// never fires a freed handle.
func cancelOnDone(ctx context.Context) (*cancelHandle, func(), error) {
	cancel, err := newCancelHandle()
	if err != nil {
		return nil, nil, err
	}
	stop := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Add(1)
	go func() {
		defer watcher.Done()
		select {
		case <-ctx.Done():
			cancel.fire()
		case <-stop:
		}
	}()
	release := func() {
		close(stop)
		watcher.Wait()
		cancel.free()
	}
	return cancel, release, nil
}

// cStrings is a NULL-terminated array of C strings in C memory.
type cStrings struct {
	p **C.char
	n int
}

func newCStrings(list []string) cStrings {
	size := C.size_t(len(list)+1) * C.size_t(unsafe.Sizeof((*C.char)(nil)))
	p := (**C.char)(C.malloc(size))
	arr := unsafe.Slice(p, len(list)+1)
	for i, s := range list {
		arr[i] = C.CString(s)
	}
	arr[len(list)] = nil
	return cStrings{p: p, n: len(list)}
}

func (s cStrings) free() {
	for _, q := range unsafe.Slice(s.p, s.n) {
		C.free(unsafe.Pointer(q))
	}
	C.free(unsafe.Pointer(s.p))
}

func check(rc C.int, what string) error {
	if rc != 0 {
		return fmt.Errorf("netnsexec: %s: %w", what, syscall.Errno(-rc))
	}
	return nil
}

func setSource(req *C.netns_exec_request, s Source) error {
	switch s.kind {
	case sourceNetns, sourceSocket:
		p := C.CString(s.path)
		defer C.free(unsafe.Pointer(p))
		if s.kind == sourceNetns {
			return check(C.netns_exec_request_set_netns(req, p), "set_netns")
		}
		return check(C.netns_exec_request_set_socket(req, p), "set_socket")
	case sourceCluster:
		id := C.CString(s.clusterID)
		defer C.free(unsafe.Pointer(id))
		cfg := C.CString(s.config)
		defer C.free(unsafe.Pointer(cfg))
		var kind C.netns_exec_config_kind
		switch s.cfgKind {
		case RBD:
			kind = C.NETNS_EXEC_KIND_RBD
		case CephFS:
			kind = C.NETNS_EXEC_KIND_CEPHFS
		case NFS:
			kind = C.NETNS_EXEC_KIND_NFS
		default:
			return fmt.Errorf("netnsexec: unknown Kind %d", int(s.cfgKind))
		}
		return check(C.netns_exec_request_set_cluster(req, id, cfg, kind), "set_cluster")
	}
	return nil // no source: netns_exec_run refuses with invalid_argument
}

// run builds the C request, runs it (blocking this goroutine's thread, which
// never changes namespace: only the child does) and copies the result out.
func run(r *request, cancel *cancelHandle) (*result, error) {
	req, free, err := newCRequest(&r.baseRequest, cancel)
	if err != nil {
		return nil, err
	}
	defer free()

	argv := newCStrings(r.argv)
	defer argv.free()
	if err := check(C.netns_exec_request_set_argv(req, argv.p), "set_argv"); err != nil {
		return nil, err
	}
	if r.dir != "" {
		d := C.CString(r.dir)
		defer C.free(unsafe.Pointer(d))
		if err := check(C.netns_exec_request_set_cwd(req, d), "set_cwd"); err != nil {
			return nil, err
		}
	}
	if err := check(C.netns_exec_request_set_stdio_fds(req, C.int(r.stdin), C.int(r.stdout),
		C.int(r.stderr)), "set_stdio_fds"); err != nil {
		return nil, err
	}
	if r.identity != IdentityDefault {
		var id C.netns_exec_identity
		switch r.identity {
		case IdentityRequire:
			id = C.NETNS_EXEC_IDENTITY_REQUIRE
		case IdentityIfPresent:
			id = C.NETNS_EXEC_IDENTITY_IF_PRESENT
		case IdentityOff:
			id = C.NETNS_EXEC_IDENTITY_OFF
		default:
			return nil, fmt.Errorf("netnsexec: unknown Identity %d", int(r.identity))
		}
		if err := check(C.netns_exec_request_set_identity(req, id), "set_identity"); err != nil {
			return nil, err
		}
	}
	if r.allowOwnNetns {
		if err := check(C.netns_exec_request_set_allow_own_netns(req, 1), "set_allow_own_netns"); err != nil {
			return nil, err
		}
	}

	res := C.netns_exec_run(req)
	if res == nil {
		return nil, errors.New("netnsexec: netns_exec_run: out of memory")
	}
	defer C.netns_exec_result_free(res)
	out := resultOf(res)
	return &out, nil
}

// newCRequest makes the C request with what baseRequest says and the cancel
// handle. free releases the request and the C memory it points to; call it
// once the run has returned.
func newCRequest(r *baseRequest, cancel *cancelHandle) (*C.netns_exec_request, func(), error) {
	req := C.netns_exec_request_new()
	if req == nil {
		return nil, nil, errors.New("netnsexec: netns_exec_request_new: out of memory")
	}
	envList := r.env
	if envList == nil {
		envList = os.Environ()
	}
	env := newCStrings(envList)
	free := func() {
		C.netns_exec_request_free(req)
		env.free()
	}
	ok := false
	defer func() {
		if !ok {
			free()
		}
	}()

	if err := setSource(req, r.source); err != nil {
		return nil, nil, err
	}
	if err := check(C.netns_exec_request_set_env(req, env.p), "set_env"); err != nil {
		return nil, nil, err
	}
	if r.waitHolder > 0 {
		ms := C.uint64_t(r.waitHolder / time.Millisecond)
		if err := check(C.netns_exec_request_set_wait_holder_ms(req, ms), "set_wait_holder_ms"); err != nil {
			return nil, nil, err
		}
	}
	if r.allowUnrecordedNetns {
		if err := check(C.netns_exec_request_set_allow_unrecorded_netns(req, 1), "set_allow_unrecorded_netns"); err != nil {
			return nil, nil, err
		}
	}
	if err := check(C.netns_exec_request_set_cancel(req, cancel.c), "set_cancel"); err != nil {
		return nil, nil, err
	}
	ok = true
	return req, free, nil
}

// resultOf copies out what every run's result says; a Ceph operation's own
// fields are cephResult's.
func resultOf(res *C.netns_exec_result) result {
	return result{
		outcome:  C.netns_exec_result_outcome(res),
		exitCode: int(C.netns_exec_result_exit_code(res)),
		status:   int(C.netns_exec_result_status(res)),
		signal:   syscall.Signal(C.netns_exec_result_signal(res)),
		errc:     C.netns_exec_result_errc(res),
		errCode:  C.GoString(C.netns_exec_result_error_code(res)),
		errno:    syscall.Errno(C.netns_exec_result_errno(res)),
		stage:    C.GoString(C.netns_exec_result_stage(res)),
		message:  C.GoString(C.netns_exec_result_error(res)),
		netnsDev: uint64(C.netns_exec_result_netns_dev(res)),
		netnsIno: uint64(C.netns_exec_result_netns_ino(res)),
		own:      C.netns_exec_result_own_namespace(res) != 0,
		warning:  C.GoString(C.netns_exec_result_warning(res)),
	}
}

// causes maps the C ABI's refusal codes to the package's cause values.
var causes = map[C.netns_exec_errc]error{
	C.NETNS_EXEC_ERR_INVALID_ARGUMENT:  ErrInvalidArgument,
	C.NETNS_EXEC_ERR_NOT_FOUND:         ErrNotPublished,
	C.NETNS_EXEC_ERR_NOT_A_NAMESPACE:   ErrNotANamespace,
	C.NETNS_EXEC_ERR_WRONG_NAMESPACE:   ErrWrongType,
	C.NETNS_EXEC_ERR_OWN_NAMESPACE:     ErrOwnNamespace,
	C.NETNS_EXEC_ERR_IDENTITY_MISMATCH: ErrIdentityMismatch,
	C.NETNS_EXEC_ERR_STALE_HOLDER:      ErrStaleHolder,
	C.NETNS_EXEC_ERR_BUSY:              ErrBusy,
	C.NETNS_EXEC_ERR_PROTOCOL:          ErrProtocol,
	C.NETNS_EXEC_ERR_UNSUPPORTED:       ErrUnsupported,
	C.NETNS_EXEC_ERR_TIMEOUT:           ErrTimeout,
	C.NETNS_EXEC_ERR_SYSTEM:            ErrSystem,
	C.NETNS_EXEC_ERR_UNTRUSTED:         ErrUntrusted,
}

const (
	outcomeExited      = C.NETNS_EXEC_OUTCOME_EXITED
	outcomeSignalled   = C.NETNS_EXEC_OUTCOME_SIGNALLED
	outcomeTimedOut    = C.NETNS_EXEC_OUTCOME_TIMED_OUT
	outcomeSpawnFailed = C.NETNS_EXEC_OUTCOME_SPAWN_FAILED
	outcomeRefused     = C.NETNS_EXEC_OUTCOME_REFUSED
	outcomeCancelled   = C.NETNS_EXEC_OUTCOME_CANCELLED
	outcomeStatusLost  = C.NETNS_EXEC_OUTCOME_STATUS_LOST
	errCancelled       = C.NETNS_EXEC_ERR_CANCELLED
	errTimeout         = C.NETNS_EXEC_ERR_TIMEOUT
	errNotFound        = C.NETNS_EXEC_ERR_NOT_FOUND
)

func (r *result) cause() error {
	if c, ok := causes[r.errc]; ok {
		return c
	}
	return ErrSystem // a code newer than this package
}

// cephRequest is one Ceph operation for netns_exec_ceph_run: the op, its
// fields (netns_exec_ceph_set's names; "mon" repeats), an optional key.
type cephRequest struct {
	baseRequest
	op          int // cephMap, ...
	fields      [][2]string
	key         []byte
	timeout     time.Duration
	cancelGrace time.Duration
	killGrace   time.Duration
}

const (
	cephMap    = C.NETNS_EXEC_CEPH_MAP
	cephUnmap  = C.NETNS_EXEC_CEPH_UNMAP
	cephMount  = C.NETNS_EXEC_CEPH_MOUNT
	cephUmount = C.NETNS_EXEC_CEPH_UMOUNT
)

// cephResult is a result plus the Ceph operation's own fields.
type cephResult struct {
	result
	device      string
	leftover    string
	cancelState CancelState
	alreadyDone bool
	stdout      []byte
	stderr      []byte
}

func runCeph(r *cephRequest, cancel *cancelHandle) (*cephResult, error) {
	req, free, err := newCRequest(&r.baseRequest, cancel)
	if err != nil {
		return nil, err
	}
	defer free()
	op := C.netns_exec_ceph_new(C.netns_exec_ceph_op(r.op))
	if op == nil {
		return nil, errors.New("netnsexec: netns_exec_ceph_new: out of memory")
	}
	defer C.netns_exec_ceph_free(op)

	for _, f := range r.fields {
		name, value := C.CString(f[0]), C.CString(f[1])
		rc := C.netns_exec_ceph_set(op, name, value)
		C.free(unsafe.Pointer(name))
		C.free(unsafe.Pointer(value))
		if err := check(rc, "ceph_set "+f[0]); err != nil {
			return nil, err
		}
	}
	if r.key != nil {
		k := C.CBytes(r.key)
		rc := C.netns_exec_ceph_set_key(op, k, C.size_t(len(r.key)))
		C.free(k)
		if err := check(rc, "ceph_set_key"); err != nil {
			return nil, err
		}
	}
	for _, d := range []struct {
		v   time.Duration
		set func(C.uint64_t) C.int
		nm  string
	}{
		{r.timeout, func(v C.uint64_t) C.int { return C.netns_exec_request_set_timeout_ms(req, v) }, "set_timeout_ms"},
		{r.cancelGrace, func(v C.uint64_t) C.int { return C.netns_exec_request_set_cancel_grace_ms(req, v) }, "set_cancel_grace_ms"},
		{r.killGrace, func(v C.uint64_t) C.int { return C.netns_exec_request_set_kill_grace_ms(req, v) }, "set_kill_grace_ms"},
	} {
		if d.v > 0 {
			if err := check(d.set(C.uint64_t(d.v/time.Millisecond)), d.nm); err != nil {
				return nil, err
			}
		}
	}

	res := C.netns_exec_ceph_run(req, op)
	if res == nil {
		return nil, errors.New("netnsexec: netns_exec_ceph_run: out of memory")
	}
	defer C.netns_exec_result_free(res)
	var outLen, errLen C.size_t
	out := C.netns_exec_result_stdout(res, &outLen)
	errb := C.netns_exec_result_stderr(res, &errLen)
	return &cephResult{
		result:      resultOf(res),
		device:      C.GoString(C.netns_exec_result_device(res)),
		leftover:    C.GoString(C.netns_exec_result_leftover(res)),
		cancelState: CancelState(C.netns_exec_result_cancel_state(res)),
		alreadyDone: C.netns_exec_result_already_done(res) != 0,
		stdout:      C.GoBytes(unsafe.Pointer(out), C.int(outLen)),
		stderr:      C.GoBytes(unsafe.Pointer(errb), C.int(errLen)),
	}, nil
}

func cancelStateName(s CancelState) string {
	return C.GoString(C.netns_exec_cancel_state_name(C.netns_exec_cancel_state(s)))
}
