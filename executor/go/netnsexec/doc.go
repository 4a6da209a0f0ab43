// Package netnsexec runs commands inside a netns-holder's network namespace,
// shaped like os/exec so that a CSI node plugin's call site changes by one
// line:
//
//	out, err := exec.CommandContext(ctx, "rbd", "map", image).Output()
//	out, err := netnsexec.CommandContext(ctx, netnsexec.Netns(netPath), "rbd", "map", image).Output()
//
// Before anything runs, libnetns_exec opens the namespace file, socket or
// ceph-csi cluster entry once and validates that descriptor (a network
// namespace, not the caller's own, the holder's identity record); the
// command is then started in a child that enters the namespace with setns.
// No thread of the calling process ever changes namespace, so it is safe
// from any number of goroutines, and the goroutine's OS thread is never
// locked or tainted.
//
// Errors are typed:
//
//   - *RefusedError (errors.Is(err, ErrRefused)): nothing ran; its Cause
//     (ErrNotPublished, ErrStaleHolder, ErrOwnNamespace, ErrWrongType, ...)
//     works with errors.Is, and the message names the path or cluster, the
//     step, the errno text and what to check.
//   - *StartError: the namespace was accepted but the program could not be
//     executed (not found: errors.Is(err, exec.ErrNotFound)); nothing ran.
//   - *ExitError: the command ran and failed; ExitCode() and Signal().
//   - when the context ends the command, its whole process group is killed
//     with SIGKILL and the error wraps ctx.Err() and the *ExitError.
//
// A Cluster source whose entry in ceph-csi's config.json has no
// netNamespaceFilePath for the kind runs the command in the caller's own
// namespace, as ceph-csi does; Cmd.Namespace.Own says so, and
// Cmd.Namespace.Warning carries the warning (errors.Is ErrNoHolderPath),
// which is also logged once per process. The config is read by ceph-csi's
// own rules (Go's encoding/json: keys case-insensitively, later duplicates
// win, sections merge), so the holder chosen is the one ceph-csi would use.
//
// Standard streams are streamed through pipes (or handed over directly when
// they are *os.File): no size limit, nothing kept by the package.
//
// The package links libnetns_exec through cgo (#cgo pkg-config: netns_exec):
// install the library (cmake --install BUILD --component netns_exec) and
// point PKG_CONFIG_PATH at its pkgconfig directory.
//
// This is the package of netns-holder 0.1.0 (the Version constant), to be
// built against libnetns_exec 0.1.0 (pkg-config --modversion netns_exec).
package netnsexec
