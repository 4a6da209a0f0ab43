/* libnetns_exec C ABI: run one command inside a netns-holder's network
 * namespace, from C, Go (cgo) or anything with a C FFI.
 *
 *   netns_exec_request *req = netns_exec_request_new();
 *   const char *argv[] = {"rbd", "map", "pool/img", NULL};
 *   netns_exec_request_set_cluster(req, "ceph-a", NULL, NETNS_EXEC_KIND_RBD);
 *   netns_exec_request_set_argv(req, argv);
 *   netns_exec_request_set_timeout_ms(req, 30000);
 *   netns_exec_result *res = netns_exec_run(req);
 *   if (netns_exec_result_exit_code(res) != 0)
 *     fprintf(stderr, "%s\n", netns_exec_result_error(res));
 *   netns_exec_result_free(res);
 *   netns_exec_request_free(req);
 *
 * Ownership: objects from netns_exec_request_new() and netns_exec_run() belong
 * to the caller, who releases them with the matching _free() (NULL is
 * accepted). Strings and buffers passed in are copied; a cancel handle and
 * stdio descriptors are used as they are (see their setters). Strings returned by a
 * result accessor belong to that result and stay valid until it is freed.
 *
 * Errors: setters return 0, or -EINVAL for a bad argument (NULL, an unknown
 * enum value, a NUL-less or empty argv) and -ENOMEM. netns_exec_run() returns
 * NULL only for a NULL request or when out of memory; every other failure is
 * described by the result (NETNS_EXEC_OUTCOME_REFUSED: nothing ran).
 *
 * Thread safety: every function may be called from any thread. A request may
 * be shared by several threads as long as none of them modifies it; a result
 * likewise. No C++ exception ever crosses this interface. The caller's
 * threads never change namespace: only the spawned child does (setns).
 *
 * Secrets: error messages returned here are redacted (key=, secret=, --key,
 * --secret values become "<redacted>"); the command's own output is returned
 * byte for byte. Pass secrets on stdin (netns_exec_request_set_stdin), not
 * on argv.
 */
#ifndef NETNS_EXEC_H
#define NETNS_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "netns/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct netns_exec_request netns_exec_request;
typedef struct netns_exec_result netns_exec_result;

/* Which netNamespaceFilePath of a ceph-csi cluster entry applies. */
typedef enum netns_exec_config_kind {
  NETNS_EXEC_KIND_RBD = 0,
  NETNS_EXEC_KIND_CEPHFS = 1,
  NETNS_EXEC_KIND_NFS = 2
} netns_exec_config_kind;

/* How much the holder's <ID>.holder.json must vouch for the namespace.
 * The default is REQUIRE (a holder's <ID>.net.ns needs its record);
 * IF_PRESENT accepts record-less (Rook-era) links. */
typedef enum netns_exec_identity {
  NETNS_EXEC_IDENTITY_IF_PRESENT = 0,
  NETNS_EXEC_IDENTITY_REQUIRE = 1, /* default */
  NETNS_EXEC_IDENTITY_OFF = 2
} netns_exec_identity;

typedef enum netns_exec_outcome {
  NETNS_EXEC_OUTCOME_EXITED = 0,       /* netns_exec_result_status() */
  NETNS_EXEC_OUTCOME_SIGNALLED = 1,    /* netns_exec_result_signal() */
  NETNS_EXEC_OUTCOME_TIMED_OUT = 2,    /* process group killed */
  NETNS_EXEC_OUTCOME_SPAWN_FAILED = 3, /* started, but failed before exec */
  NETNS_EXEC_OUTCOME_REFUSED = 4,      /* nothing ran: bad source, stale holder, ...
                                          (netns_exec_result_errc() says why) */
  NETNS_EXEC_OUTCOME_STATUS_LOST = 5,  /* ran, exit status reaped elsewhere (exit code 255) */
  NETNS_EXEC_OUTCOME_CANCELLED = 6     /* the cancel handle fired while the command ran:
                                          its process group was killed (SIGKILL) */
} netns_exec_outcome;

/* Why a request was refused (NETNS_EXEC_OUTCOME_REFUSED, nothing ran). The
 * values are stable; new ones are only ever appended. netns_exec_errc_name()
 * gives the same names as netns_exec_result_error_code(). */
typedef enum netns_exec_errc {
  NETNS_EXEC_ERR_NONE = 0,              /* not refused */
  NETNS_EXEC_ERR_INVALID_ARGUMENT = 1,  /* bad cluster ID, config content, request */
  NETNS_EXEC_ERR_NOT_FOUND = 2,         /* not published: no such file, socket, cluster entry */
  NETNS_EXEC_ERR_NOT_A_NAMESPACE = 3,   /* the file is not on nsfs */
  NETNS_EXEC_ERR_WRONG_NAMESPACE = 4,   /* a namespace, but not a network namespace */
  NETNS_EXEC_ERR_OWN_NAMESPACE = 5,     /* the caller's own network namespace */
  NETNS_EXEC_ERR_IDENTITY_MISMATCH = 6, /* the holder record does not match what was opened */
  NETNS_EXEC_ERR_STALE_HOLDER = 7,      /* the holder is gone (dangling link, dead pid) */
  NETNS_EXEC_ERR_BUSY = 8,              /* another holder holds the cluster's <ID>.lock (the
                                           holder's start-up refusal; no run check gives it) */
  NETNS_EXEC_ERR_PROTOCOL = 9,          /* a holder socket sent something unexpected */
  NETNS_EXEC_ERR_UNSUPPORTED = 10,      /* a record or header version we do not know */
  NETNS_EXEC_ERR_TIMEOUT = 11,          /* waiting for the holder (wait_holder_ms) ran out */
  NETNS_EXEC_ERR_SYSTEM = 12,           /* another failed system call */
  NETNS_EXEC_ERR_CANCELLED = 13,        /* the cancel handle had fired before the command started */
  NETNS_EXEC_ERR_UNTRUSTED = 14         /* a file, directory or socket peer failed the provenance
                                           rules (owner, mode): see the message */
} netns_exec_errc;

/* "not_found", "stale_holder", ...; "" for NETNS_EXEC_ERR_NONE and unknown values. */
NETNS_EXEC_API const char* netns_exec_errc_name(netns_exec_errc errc);

/* The release, e.g. "0.1.0" (the VERSION file of the source tree). */
NETNS_EXEC_API const char* netns_exec_version(void);

NETNS_EXEC_API netns_exec_request* netns_exec_request_new(void);
NETNS_EXEC_API void netns_exec_request_free(netns_exec_request* req);

/* The namespace source: exactly one; the last call wins. */
NETNS_EXEC_API int netns_exec_request_set_netns(netns_exec_request* req, const char* path);
/* config NULL: /etc/ceph-csi-config/config.json. */
NETNS_EXEC_API int netns_exec_request_set_cluster(netns_exec_request* req, const char* cluster_id,
                                                  const char* config, netns_exec_config_kind kind);
NETNS_EXEC_API int netns_exec_request_set_socket(netns_exec_request* req, const char* path);

/* NULL-terminated; argv[0] is searched in PATH unless it contains '/'. */
NETNS_EXEC_API int netns_exec_request_set_argv(netns_exec_request* req, const char* const* argv);
/* NULL-terminated "NAME=value" list: the complete environment. env NULL
 * (the default): the caller's environment. */
NETNS_EXEC_API int netns_exec_request_set_env(netns_exec_request* req, const char* const* env);
/* The command's working directory (the child chdirs there before exec; a
 * failure is NETNS_EXEC_OUTCOME_SPAWN_FAILED at stage "chdir"). NULL: the
 * caller's (the default). */
NETNS_EXEC_API int netns_exec_request_set_cwd(netns_exec_request* req, const char* dir);
/* Bytes written to the command's stdin (default: /dev/null). Replaces a
 * stdin descriptor given to netns_exec_request_set_stdio_fds. */
NETNS_EXEC_API int netns_exec_request_set_stdin(netns_exec_request* req, const void* data,
                                                size_t len);
/* The caller's own descriptors (a pipe, a file, a socket, a pty) as the
 * command's stdin, stdout and stderr: dup2'ed onto 0, 1, 2 in the child, so
 * the streams flow while the command runs, without any size limit, and
 * nothing is captured (netns_exec_result_stdout/_stderr are ""). -1: the
 * default for that stream (stdin: the set_stdin bytes or /dev/null; stdout
 * and stderr: captured). The descriptors are not closed, read, written or
 * changed, and must stay open until netns_exec_run returns. The same
 * descriptor may be given for stdout and stderr. A stdin descriptor replaces
 * set_stdin bytes. -EINVAL for a value below -1. */
NETNS_EXEC_API int netns_exec_request_set_stdio_fds(netns_exec_request* req, int stdin_fd,
                                                    int stdout_fd, int stderr_fd);
/* 0 (default): no deadline. On timeout: SIGTERM to the process group, then
 * SIGKILL after the grace (default 2000 ms). */
NETNS_EXEC_API int netns_exec_request_set_timeout_ms(netns_exec_request* req, uint64_t timeout_ms);
NETNS_EXEC_API int netns_exec_request_set_kill_grace_ms(netns_exec_request* req, uint64_t grace_ms);
/* How long a missing holder file or socket is waited for (default 0). */
NETNS_EXEC_API int netns_exec_request_set_wait_holder_ms(netns_exec_request* req, uint64_t wait_ms);
NETNS_EXEC_API int netns_exec_request_set_identity(netns_exec_request* req,
                                                   netns_exec_identity identity);
NETNS_EXEC_API int netns_exec_request_set_allow_own_netns(netns_exec_request* req, int allow);
/* allow != 0: accept a namespace file no holder record vouches for and not
 * in a holder directory (/run/netns/NAME, /proc/PID/ns/net). Default 0:
 * such a file is refused (NETNS_EXEC_ERR_UNTRUSTED), nothing runs. */
NETNS_EXEC_API int netns_exec_request_set_allow_unrecorded_netns(netns_exec_request* req,
                                                                 int allow);
/* Bytes kept per captured stream, the tail (default 1 MiB). */
NETNS_EXEC_API int netns_exec_request_set_output_limit(netns_exec_request* req, size_t bytes);

/* Cancellation: a handle another thread (or a signal handler) fires to stop
 * a run. When it fires while the command runs, the command's whole process
 * group is killed with SIGKILL at once and the outcome is
 * NETNS_EXEC_OUTCOME_CANCELLED (exit code 137). When it has fired before the
 * command starts, nothing runs: NETNS_EXEC_OUTCOME_REFUSED with
 * NETNS_EXEC_ERR_CANCELLED. A wait for the holder (set_wait_holder_ms) is not
 * interrupted; the handle is looked at when that wait ends. A fired handle
 * stays fired: one handle can cancel many runs (a context); make a new one
 * per context. */
typedef struct netns_exec_cancel netns_exec_cancel;
/* NULL when out of memory or descriptors (errno says which). */
NETNS_EXEC_API netns_exec_cancel* netns_exec_cancel_new(void);
/* Async-signal-safe; any thread; idempotent. 0, or -EINVAL for NULL. */
NETNS_EXEC_API int netns_exec_cancel_fire(netns_exec_cancel* cancel);
/* Only after every netns_exec_run that uses it has returned. */
NETNS_EXEC_API void netns_exec_cancel_free(netns_exec_cancel* cancel);
/* Not copied: the handle must outlive every netns_exec_run of this request.
 * NULL: none (the default). */
NETNS_EXEC_API int netns_exec_request_set_cancel(netns_exec_request* req,
                                                 netns_exec_cancel* cancel);

/* Resolves and validates the source, runs the command, waits for it. */
NETNS_EXEC_API netns_exec_result* netns_exec_run(const netns_exec_request* req);
NETNS_EXEC_API void netns_exec_result_free(netns_exec_result* res);

NETNS_EXEC_API netns_exec_outcome netns_exec_result_outcome(const netns_exec_result* res);
/* The exit code per the netns-exec contract: the command's own, 124 timed
 * out, 125 refused or failed before exec, 126 not executable, 127 not found,
 * 128+N killed by signal N. */
NETNS_EXEC_API int netns_exec_result_exit_code(const netns_exec_result* res);
NETNS_EXEC_API int netns_exec_result_status(const netns_exec_result* res); /* EXITED: its code */
NETNS_EXEC_API int netns_exec_result_signal(
    const netns_exec_result* res); /* SIGNALLED/TIMED_OUT/CANCELLED */
/* Captured output (NUL-terminated as well; *len may be NULL). */
NETNS_EXEC_API const char* netns_exec_result_stdout(const netns_exec_result* res, size_t* len);
NETNS_EXEC_API const char* netns_exec_result_stderr(const netns_exec_result* res, size_t* len);
NETNS_EXEC_API int netns_exec_result_stdout_truncated(const netns_exec_result* res);
NETNS_EXEC_API int netns_exec_result_stderr_truncated(const netns_exec_result* res);
/* REFUSED / SPAWN_FAILED / TIMED_OUT: one line naming cluster and/or path,
 * step, errno text and what to check. "" otherwise. */
NETNS_EXEC_API const char* netns_exec_result_error(const netns_exec_result* res);
/* REFUSED: "not_found", "stale_holder", "identity_mismatch", ...; "" otherwise. */
NETNS_EXEC_API const char* netns_exec_result_error_code(const netns_exec_result* res);
/* REFUSED: why, as an enum (NETNS_EXEC_ERR_NONE otherwise). */
NETNS_EXEC_API netns_exec_errc netns_exec_result_errc(const netns_exec_result* res);
/* REFUSED: the errno of the failed system call, 0 when none failed;
 * SPAWN_FAILED: the errno of the failed stage. 0 otherwise. */
NETNS_EXEC_API int netns_exec_result_errno(const netns_exec_result* res);
/* SPAWN_FAILED: the stage that failed ("setns", "stdio", "exec", ...); "" otherwise. */
NETNS_EXEC_API const char* netns_exec_result_stage(const netns_exec_result* res);
/* The namespace the command ran in (0 when refused). */
NETNS_EXEC_API uint64_t netns_exec_result_netns_ino(const netns_exec_result* res);
NETNS_EXEC_API uint64_t netns_exec_result_netns_dev(const netns_exec_result* res);
/* 1 when the config named no holder and the command ran in the caller's own
 * namespace (as ceph-csi does for an empty netNamespaceFilePath). */
NETNS_EXEC_API int netns_exec_result_own_namespace(const netns_exec_result* res);
/* What the caller should be told although the command ran, "" for nothing:
 * set with own_namespace when the cluster has an entry in ceph-csi's
 * config.json but no netNamespaceFilePath for the kind (keys matched as
 * ceph-csi matches them, so "RBD" or "NetNamespaceFilePath" count): one line
 * naming the cluster, the config file and the section. Valid until
 * netns_exec_result_free(). */
NETNS_EXEC_API const char* netns_exec_result_warning(const netns_exec_result* res);

/* Ceph operations: rbd map / unmap (krbd), mount (kernel CephFS,
 * ceph-fuse, NFS) and umount, built as ceph-csi builds them and run inside
 * the request's namespace (its source, identity, wait_holder, env, timeout,
 * kill_grace and cancel handle apply; its argv, cwd and stdio do not: the
 * output is captured).
 *
 * Cancellation never leaves half a mapping. A cancel handle that fired
 * before the command started: nothing runs (REFUSED, NETNS_EXEC_ERR_CANCELLED,
 * exit code 125). Fired while it runs, or the timeout reached: the command
 * is NOT killed at once; it gets the cancel grace (default 30 s,
 * netns_exec_request_set_cancel_grace_ms) to finish, then SIGTERM, the kill
 * grace, SIGKILL. Then a map or mount that made its device or mount is
 * undone (rbd unmap DEVICE, umount TARGET) before netns_exec_ceph_run
 * returns NETNS_EXEC_OUTCOME_CANCELLED (exit code 137) or _TIMED_OUT (124);
 * an unmap or umount that finished keeps its own outcome.
 * netns_exec_result_cancel_state() says which of these happened. A request
 * timeout of 0 means the default of 2 minutes here, never "none". */
typedef enum netns_exec_ceph_op {
  NETNS_EXEC_CEPH_MAP = 0,
  NETNS_EXEC_CEPH_UNMAP = 1,
  NETNS_EXEC_CEPH_MOUNT = 2,
  NETNS_EXEC_CEPH_UMOUNT = 3
} netns_exec_ceph_op;

typedef enum netns_exec_cancel_state {
  NETNS_EXEC_CANCEL_NONE = 0,         /* not cancelled, not timed out */
  NETNS_EXEC_CANCEL_NOT_STARTED = 1,  /* cancelled before the start: nothing ran */
  NETNS_EXEC_CANCEL_UNDONE = 2,       /* map/mount: what it made was undone */
  NETNS_EXEC_CANCEL_NOTHING_LEFT = 3, /* map/mount: it failed or was stopped, nothing left */
  NETNS_EXEC_CANCEL_LEFT_BEHIND = 4,  /* the undo failed, or an unmap/umount was killed:
                                         netns_exec_result_leftover(), the error says what to run */
  NETNS_EXEC_CANCEL_COMPLETED = 5 /* unmap/umount finished after the cancel: its outcome stands */
} netns_exec_cancel_state;

/* "none", "not_started", "undone", "nothing_left", "left_behind", "completed";
 * "" if unknown. */
NETNS_EXEC_API const char* netns_exec_cancel_state_name(netns_exec_cancel_state state);

typedef struct netns_exec_ceph netns_exec_ceph;
/* NULL for an unknown op or when out of memory. */
NETNS_EXEC_API netns_exec_ceph* netns_exec_ceph_new(netns_exec_ceph_op op);
NETNS_EXEC_API void netns_exec_ceph_free(netns_exec_ceph* op);
/* One field of the operation, copied; -EINVAL for an unknown field or NULL.
 *   map     pool, image, rados_namespace, snap, mon (repeat), id, keyfile,
 *           options, read_only ("1")
 *   unmap   device (/dev/rbdN or pool/image), options
 *   mount   type (ceph (default), ceph-fuse, nfs), target, mon (repeat),
 *           path (default /), fs, server, options, id, keyfile, ceph_conf
 *   umount  target
 * and, for any op, where things are on this node: rbd_program,
 * mount_program, umount_program, ceph_fuse_program, modprobe_program,
 * sys_bus_rbd, proc_filesystems, proc_mountinfo, lock_dir. The request is
 * validated by netns_exec_ceph_run (REFUSED, INVALID_ARGUMENT). */
NETNS_EXEC_API int netns_exec_ceph_set(netns_exec_ceph* op, const char* field, const char* value);
/* The cephx key by value (handed to the command on its stdin, never argv);
 * replaces a keyfile. */
NETNS_EXEC_API int netns_exec_ceph_set_key(netns_exec_ceph* op, const void* key, size_t len);
/* Default 30000. */
NETNS_EXEC_API int netns_exec_request_set_cancel_grace_ms(netns_exec_request* req,
                                                          uint64_t grace_ms);

/* Resolves and validates the source, runs the operation, waits for it (and
 * for its undo). NULL only for NULL arguments or when out of memory. */
NETNS_EXEC_API netns_exec_result* netns_exec_ceph_run(const netns_exec_request* req,
                                                      const netns_exec_ceph* op);
/* map: the device ("/dev/rbd0"); "" otherwise, and when cancelled. */
NETNS_EXEC_API const char* netns_exec_result_device(const netns_exec_result* res);
NETNS_EXEC_API netns_exec_cancel_state netns_exec_result_cancel_state(const netns_exec_result* res);
/* LEFT_BEHIND: the device or mount point still there ("" when unknown). */
NETNS_EXEC_API const char* netns_exec_result_leftover(const netns_exec_result* res);
/* 1 when the work was already done (mapped, mounted, or already gone). */
NETNS_EXEC_API int netns_exec_result_already_done(const netns_exec_result* res);

#ifdef __cplusplus
}
#endif

#endif /* NETNS_EXEC_H */
