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
 * accepted). Strings and buffers passed in are copied. Strings returned by a
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
 * Secrets: error messages and captured output returned here are redacted
 * (key=, secret=, --key, --secret values become "<redacted>"). Pass secrets
 * on stdin (netns_exec_request_set_stdin), not on argv.
 */
#ifndef NETNS_EXEC_H
#define NETNS_EXEC_H

#include <stddef.h>
#include <stdint.h>

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

/* How much the holder's <ID>.holder.json must vouch for the namespace. */
typedef enum netns_exec_identity {
  NETNS_EXEC_IDENTITY_IF_PRESENT = 0, /* default */
  NETNS_EXEC_IDENTITY_REQUIRE = 1,
  NETNS_EXEC_IDENTITY_OFF = 2
} netns_exec_identity;

typedef enum netns_exec_outcome {
  NETNS_EXEC_OUTCOME_EXITED = 0,       /* netns_exec_result_status() */
  NETNS_EXEC_OUTCOME_SIGNALLED = 1,    /* netns_exec_result_signal() */
  NETNS_EXEC_OUTCOME_TIMED_OUT = 2,    /* process group killed */
  NETNS_EXEC_OUTCOME_SPAWN_FAILED = 3, /* started, but failed before exec */
  NETNS_EXEC_OUTCOME_REFUSED = 4,      /* nothing ran: bad source, stale holder, ... */
  NETNS_EXEC_OUTCOME_STATUS_LOST = 5   /* ran, exit status reaped elsewhere (exit code 255) */
} netns_exec_outcome;

/* "0.1.0" */
const char *netns_exec_version(void);

netns_exec_request *netns_exec_request_new(void);
void netns_exec_request_free(netns_exec_request *req);

/* The namespace source: exactly one; the last call wins. */
int netns_exec_request_set_netns(netns_exec_request *req, const char *path);
/* config NULL: /etc/ceph-csi-config/config.json. */
int netns_exec_request_set_cluster(netns_exec_request *req, const char *cluster_id,
                                   const char *config, netns_exec_config_kind kind);
int netns_exec_request_set_socket(netns_exec_request *req, const char *path);

/* NULL-terminated; argv[0] is searched in PATH unless it contains '/'. */
int netns_exec_request_set_argv(netns_exec_request *req, const char *const *argv);
/* NULL-terminated "NAME=value" list: the complete environment. env NULL
 * (the default): the caller's environment. */
int netns_exec_request_set_env(netns_exec_request *req, const char *const *env);
/* Bytes written to the command's stdin (default: /dev/null). */
int netns_exec_request_set_stdin(netns_exec_request *req, const void *data, size_t len);
/* 0 (default): no deadline. On timeout: SIGTERM to the process group, then
 * SIGKILL after the grace (default 2000 ms). */
int netns_exec_request_set_timeout_ms(netns_exec_request *req, uint64_t timeout_ms);
int netns_exec_request_set_kill_grace_ms(netns_exec_request *req, uint64_t grace_ms);
/* How long a missing holder file or socket is waited for (default 0). */
int netns_exec_request_set_wait_holder_ms(netns_exec_request *req, uint64_t wait_ms);
int netns_exec_request_set_identity(netns_exec_request *req, netns_exec_identity identity);
int netns_exec_request_set_allow_own_netns(netns_exec_request *req, int allow);
/* Bytes kept per captured stream, the tail (default 1 MiB). */
int netns_exec_request_set_output_limit(netns_exec_request *req, size_t bytes);

/* Resolves and validates the source, runs the command, waits for it. */
netns_exec_result *netns_exec_run(const netns_exec_request *req);
void netns_exec_result_free(netns_exec_result *res);

netns_exec_outcome netns_exec_result_outcome(const netns_exec_result *res);
/* The exit code per the netns-exec contract: the command's own, 124 timed
 * out, 125 refused or failed before exec, 126 not executable, 127 not found,
 * 128+N killed by signal N. */
int netns_exec_result_exit_code(const netns_exec_result *res);
int netns_exec_result_status(const netns_exec_result *res); /* EXITED: its code */
int netns_exec_result_signal(const netns_exec_result *res); /* SIGNALLED/TIMED_OUT */
/* Captured output (NUL-terminated as well; *len may be NULL). */
const char *netns_exec_result_stdout(const netns_exec_result *res, size_t *len);
const char *netns_exec_result_stderr(const netns_exec_result *res, size_t *len);
int netns_exec_result_stdout_truncated(const netns_exec_result *res);
int netns_exec_result_stderr_truncated(const netns_exec_result *res);
/* REFUSED / SPAWN_FAILED / TIMED_OUT: one line naming cluster and/or path,
 * step, errno text and what to check. "" otherwise. */
const char *netns_exec_result_error(const netns_exec_result *res);
/* REFUSED: "not_found", "stale_holder", "identity_mismatch", ...; "" otherwise. */
const char *netns_exec_result_error_code(const netns_exec_result *res);
/* The namespace the command ran in (0 when refused). */
uint64_t netns_exec_result_netns_ino(const netns_exec_result *res);
uint64_t netns_exec_result_netns_dev(const netns_exec_result *res);
/* 1 when the config named no holder and the command ran in the caller's own
 * namespace (as ceph-csi does for an empty netNamespaceFilePath). */
int netns_exec_result_own_namespace(const netns_exec_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NETNS_EXEC_H */
