// A Go program (cgo, standard library only) calling the installed
// libnetns_exec the way ceph-csi would:
//
//	abi_go NETNS_FILE EXPECTED_NET_INODE
//
// Runs `readlink /proc/self/ns/net` in the namespace from several goroutines
// at once and checks every answer, then checks a refusal.
package main

/*
#cgo pkg-config: netns_exec
#include <stdlib.h>
#include <netns_exec/netns_exec.h>
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"
)

type result struct {
	exitCode int
	stdout   string
	errText  string
}

func run(netns string, argv []string) (result, error) {
	req := C.netns_exec_request_new()
	if req == nil {
		return result{}, fmt.Errorf("netns_exec_request_new failed")
	}
	defer C.netns_exec_request_free(req)

	cPath := C.CString(netns)
	defer C.free(unsafe.Pointer(cPath))
	if rc := C.netns_exec_request_set_netns(req, cPath); rc != 0 {
		return result{}, fmt.Errorf("set_netns: %d", rc)
	}
	cArgv := make([]*C.char, len(argv)+1)
	for i, a := range argv {
		cArgv[i] = C.CString(a)
		defer C.free(unsafe.Pointer(cArgv[i]))
	}
	if rc := C.netns_exec_request_set_argv(req, &cArgv[0]); rc != 0 {
		return result{}, fmt.Errorf("set_argv: %d", rc)
	}
	C.netns_exec_request_set_timeout_ms(req, 10000)

	res := C.netns_exec_run(req)
	if res == nil {
		return result{}, fmt.Errorf("netns_exec_run returned NULL")
	}
	defer C.netns_exec_result_free(res)
	var n C.size_t
	out := C.netns_exec_result_stdout(res, &n)
	return result{
		exitCode: int(C.netns_exec_result_exit_code(res)),
		stdout:   C.GoStringN(out, C.int(n)),
		errText:  C.GoString(C.netns_exec_result_error(res)),
	}, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: abi_go NETNS_FILE EXPECTED_NET_INODE")
		os.Exit(2)
	}
	want := fmt.Sprintf("net:[%s]\n", os.Args[2])

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := run(os.Args[1], []string{"readlink", "/proc/self/ns/net"})
			if err != nil {
				errs <- err
				return
			}
			if r.exitCode != 0 || r.stdout != want {
				errs <- fmt.Errorf("exit %d, stdout %q, want %q (%s)", r.exitCode, r.stdout, want, r.errText)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, "abi_go:", err)
		os.Exit(1)
	}

	r, err := run("/nonexistent/abi.net.ns", []string{"true"})
	if err != nil || r.exitCode != 125 || r.errText == "" {
		fmt.Fprintf(os.Stderr, "abi_go: missing file not refused: %+v %v\n", r, err)
		os.Exit(1)
	}
	fmt.Println("abi_go: ok")
}
