/* A C program built against the *installed* libnetns_exec via pkg-config:
 *   abi_c NETNS_FILE EXPECTED_NET_INODE SCRATCH_DIR
 * In a real holder's namespace: readlink /proc/self/ns/net (captured), the
 * captured stdout byte for byte (no redaction of the command's data), the
 * caller's own descriptors as stdin/stdout (streamed), the cancellation
 * handle (fired while the command runs: the process group dies; fired
 * before: nothing runs), and the refusal codes as enum values. */
#define _GNU_SOURCE
#include <netns_exec/netns_exec.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int fail(const char* what, const netns_exec_result* res) {
  fprintf(stderr, "abi_c: %s (outcome %d, exit %d, errc %s, error: %s)\n", what,
          (int)netns_exec_result_outcome(res), netns_exec_result_exit_code(res),
          netns_exec_errc_name(netns_exec_result_errc(res)), netns_exec_result_error(res));
  return 1;
}

static netns_exec_request* request(const char* netns, const char* const* argv) {
  netns_exec_request* req = netns_exec_request_new();
  if (req == NULL || netns_exec_request_set_argv(req, argv) != 0 ||
      netns_exec_request_set_netns(req, netns) != 0 ||
      netns_exec_request_set_identity(req, NETNS_EXEC_IDENTITY_REQUIRE) != 0 ||
      netns_exec_request_set_timeout_ms(req, 20000) != 0) {
    fprintf(stderr, "abi_c: building the request failed\n");
    exit(1);
  }
  return req;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct runner {
  const netns_exec_request* req;
  netns_exec_result* res;
};

static void* run_thread(void* arg) {
  struct runner* r = arg;
  r->res = netns_exec_run(r->req);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: abi_c NETNS_FILE EXPECTED_NET_INODE SCRATCH_DIR\n");
    return 2;
  }
  const char *netns = argv[1], *dir = argv[3];
  char expected[64];
  snprintf(expected, sizeof expected, "net:[%s]\n", argv[2]);

  /* Captured output, in the holder's namespace. */
  const char* readlink_cmd[] = {"readlink", "/proc/self/ns/net", NULL};
  netns_exec_request* req = request(netns, readlink_cmd);
  netns_exec_result* res = netns_exec_run(req);
  if (res == NULL) return fail("no result", NULL);
  size_t len = 0;
  const char* out = netns_exec_result_stdout(res, &len);
  if (netns_exec_result_outcome(res) != NETNS_EXEC_OUTCOME_EXITED ||
      netns_exec_result_exit_code(res) != 0 || netns_exec_result_errc(res) != NETNS_EXEC_ERR_NONE)
    return fail("the command did not succeed", res);
  if (len != strlen(expected) || strcmp(out, expected) != 0) {
    fprintf(stderr, "abi_c: ran in %s, expected %s", out, expected);
    return 1;
  }
  netns_exec_result_free(res);
  netns_exec_request_free(req);

  /* The command's own bytes come back untouched, secret-looking words too. */
  const char* data = "key=abc secret=xyz --key K\n";
  const char* printf_cmd[] = {"printf", "%s", data, NULL};
  req = request(netns, printf_cmd);
  res = netns_exec_run(req);
  out = netns_exec_result_stdout(res, &len);
  if (netns_exec_result_exit_code(res) != 0 || len != strlen(data) || memcmp(out, data, len) != 0) {
    fprintf(stderr, "abi_c: captured stdout %.*s is not the command's %s", (int)len, out, data);
    return 1;
  }
  netns_exec_result_free(res);
  netns_exec_request_free(req);

  /* Our descriptors as stdin and stdout: 3 MiB (three times the capture
   * limit) through a file, nothing captured. */
  char in_path[4096], out_path[4096];
  snprintf(in_path, sizeof in_path, "%s/in", dir);
  snprintf(out_path, sizeof out_path, "%s/out", dir);
  int in_fd = open(in_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int out_fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (in_fd < 0 || out_fd < 0) return fail("open scratch files", NULL);
  static char block[1 << 16];
  for (size_t i = 0; i < sizeof block; ++i) block[i] = (char)('a' + i % 26);
  for (int i = 0; i < 48; ++i)
    if (write(in_fd, block, sizeof block) != (ssize_t)sizeof block) return fail("write", NULL);
  lseek(in_fd, 0, SEEK_SET);
  const char* cat_cmd[] = {"cat", NULL};
  req = request(netns, cat_cmd);
  if (netns_exec_request_set_stdio_fds(req, in_fd, out_fd, -1) != 0 ||
      netns_exec_request_set_stdio_fds(req, -2, -1, -1) != -EINVAL)
    return fail("set_stdio_fds", NULL);
  netns_exec_request_set_stdio_fds(req, in_fd, out_fd, -1);
  res = netns_exec_run(req);
  struct stat st;
  netns_exec_result_stdout(res, &len);
  if (netns_exec_result_exit_code(res) != 0 || fstat(out_fd, &st) != 0 ||
      st.st_size != 48 * (off_t)sizeof block || len != 0)
    return fail("stdin/stdout through the caller's descriptors", res);
  netns_exec_result_free(res);
  netns_exec_request_free(req);
  close(in_fd);
  close(out_fd);

  /* Cancel while running: a shell with a background grandchild in its
   * process group; both die, at once. */
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC) != 0) return fail("pipe2", NULL);
  const char* sleep_cmd[] = {"sh", "-c", "sleep 600 & echo $!; wait", NULL};
  req = request(netns, sleep_cmd);
  netns_exec_cancel* cancel = netns_exec_cancel_new();
  if (cancel == NULL || netns_exec_request_set_cancel(req, cancel) != 0 ||
      netns_exec_request_set_stdio_fds(req, -1, pfd[1], -1) != 0)
    return fail("cancel handle", NULL);
  struct runner r = {req, NULL};
  pthread_t thread;
  pthread_create(&thread, NULL, run_thread, &r);
  char line[32] = {0};
  ssize_t n = read(pfd[0], line, sizeof line - 1);
  pid_t grandchild = n > 0 ? (pid_t)atoi(line) : 0;
  int grandchild_fd = grandchild > 0 ? (int)syscall(SYS_pidfd_open, grandchild, 0) : -1;
  struct pollfd alive = {grandchild_fd, POLLIN, 0};
  if (grandchild_fd < 0 || poll(&alive, 1, 0) != 0) return fail("no grandchild running", NULL);
  double t0 = now();
  netns_exec_cancel_fire(cancel);
  pthread_join(thread, NULL);
  double took = now() - t0;
  if (netns_exec_result_outcome(r.res) != NETNS_EXEC_OUTCOME_CANCELLED ||
      netns_exec_result_exit_code(r.res) != 137 || netns_exec_result_signal(r.res) != SIGKILL)
    return fail("a fired handle did not cancel the run", r.res);
  /* The SIGKILL to the group was sent before the run returned; its delivery
   * to the grandchild is asynchronous. Its pidfd (opened before the cancel,
   * so no reused pid can answer) becomes readable when it is gone. */
  struct pollfd gp = {grandchild_fd, POLLIN, 0};
  int gone = poll(&gp, 1, 2000) == 1;
  if (!gone) return fail("the grandchild survived the cancellation", r.res);
  if (took > 2.0) return fail("cancellation took more than 2 s", r.res);
  close(grandchild_fd);
  netns_exec_result_free(r.res);

  /* A handle fired before the start: nothing runs. */
  char marker[4096];
  snprintf(marker, sizeof marker, "%s/marker", dir);
  const char* touch_cmd[] = {"touch", marker, NULL};
  netns_exec_request_set_argv(req, touch_cmd);
  netns_exec_request_set_stdio_fds(req, -1, -1, -1);
  res = netns_exec_run(req);
  if (netns_exec_result_outcome(res) != NETNS_EXEC_OUTCOME_REFUSED ||
      netns_exec_result_errc(res) != NETNS_EXEC_ERR_CANCELLED ||
      strcmp(netns_exec_result_error_code(res), "cancelled") != 0 || access(marker, F_OK) == 0)
    return fail("a pre-fired handle did not refuse", res);
  netns_exec_result_free(res);
  netns_exec_request_free(req);
  netns_exec_cancel_free(cancel);
  close(pfd[0]);
  close(pfd[1]);

  /* Refusals: the enum and the errno. */
  req = request("/nonexistent/abi.net.ns", readlink_cmd);
  res = netns_exec_run(req);
  if (netns_exec_result_outcome(res) != NETNS_EXEC_OUTCOME_REFUSED ||
      netns_exec_result_exit_code(res) != 125 ||
      netns_exec_result_errc(res) != NETNS_EXEC_ERR_NOT_FOUND ||
      netns_exec_result_errno(res) != ENOENT ||
      strcmp(netns_exec_errc_name(NETNS_EXEC_ERR_NOT_FOUND), netns_exec_result_error_code(res)) !=
          0 ||
      strstr(netns_exec_result_error(res), "ENOENT") == NULL)
    return fail("a missing file was not refused as expected", res);
  netns_exec_result_free(res);
  netns_exec_request_set_netns(req, "/proc/self/ns/net");
  res = netns_exec_run(req);
  if (netns_exec_result_errc(res) != NETNS_EXEC_ERR_OWN_NAMESPACE)
    return fail("our own namespace was not refused as own_namespace", res);
  netns_exec_result_free(res);
  /* The opt-in for files no holder record vouches for: it waives no other check. */
  if (netns_exec_request_set_allow_unrecorded_netns(NULL, 1) != -EINVAL ||
      netns_exec_request_set_allow_unrecorded_netns(req, 1) != 0) {
    fprintf(stderr, "abi_c: netns_exec_request_set_allow_unrecorded_netns\n");
    return 1;
  }
  res = netns_exec_run(req);
  if (netns_exec_result_errc(res) != NETNS_EXEC_ERR_OWN_NAMESPACE)
    return fail("our own namespace was not refused as own_namespace with the unrecorded opt-in",
                res);
  netns_exec_result_free(res);
  netns_exec_request_set_allow_unrecorded_netns(req, 0);
  netns_exec_request_set_netns(req, "/proc/self/ns/mnt");
  res = netns_exec_run(req);
  if (netns_exec_result_errc(res) != NETNS_EXEC_ERR_WRONG_NAMESPACE)
    return fail("a mount namespace was not refused as wrong_namespace", res);
  netns_exec_result_free(res);
  netns_exec_request_free(req);

  /* ceph-csi's config.json, read by ceph-csi's rules: "RBD" and
   * "NetNamespaceFilePath" name the holder; an entry with no path runs here
   * and says so in netns_exec_result_warning(). */
  {
    char cfg[4096], text[8192], id[128];
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
    /* The holder's cluster ID: its link is <dir>/<ID>.net.ns. */
    const char* base = strrchr(netns, '/') ? strrchr(netns, '/') + 1 : netns;
    snprintf(id, sizeof id, "%s", base);
    char* suffix = strstr(id, ".net.ns");
    if (suffix == NULL) return fail("the holder file is not <ID>.net.ns", NULL);
    *suffix = '\0';
    int n = snprintf(text, sizeof text,
                     "[{\"ClusterID\": \"%s\", \"RBD\": {\"NetNamespaceFilePath\": \"%s\"}},"
                     " {\"clusterID\": \"abi-none\", \"rbd\": {}}]",
                     id, netns);
    int cfd = open(cfg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (cfd < 0 || fchmod(cfd, 0644) != 0 || write(cfd, text, (size_t)n) != n || close(cfd) != 0)
      return fail("write config.json", NULL);
    req = request(netns, readlink_cmd);
    if (netns_exec_request_set_cluster(req, id, cfg, NETNS_EXEC_KIND_RBD) != 0)
      return fail("set_cluster", NULL);
    res = netns_exec_run(req);
    if (netns_exec_result_exit_code(res) != 0 ||
        strcmp(netns_exec_result_stdout(res, NULL), expected) != 0 ||
        netns_exec_result_own_namespace(res) != 0 ||
        strcmp(netns_exec_result_warning(res), "") != 0)
      return fail("\"RBD\": {\"NetNamespaceFilePath\"} did not name the holder", res);
    netns_exec_result_free(res);
    netns_exec_request_set_cluster(req, "abi-none", cfg, NETNS_EXEC_KIND_RBD);
    res = netns_exec_run(req);
    if (netns_exec_result_exit_code(res) != 0 || netns_exec_result_own_namespace(res) != 1 ||
        strstr(netns_exec_result_warning(res), "\"abi-none\"") == NULL ||
        strstr(netns_exec_result_warning(res), "rbd.netNamespaceFilePath") == NULL)
      return fail("an entry without a path gave no warning", res);
    netns_exec_result_free(res);
    netns_exec_request_free(req);
  }

  /* A spawn failure: the stage and errno. */
  const char* missing_cmd[] = {"no-such-program-abi", NULL};
  req = request(netns, missing_cmd);
  res = netns_exec_run(req);
  if (netns_exec_result_outcome(res) != NETNS_EXEC_OUTCOME_SPAWN_FAILED ||
      netns_exec_result_exit_code(res) != 127 ||
      strcmp(netns_exec_result_stage(res), "exec") != 0 || netns_exec_result_errno(res) != ENOENT)
    return fail("a missing program was not a spawn failure at exec", res);
  netns_exec_result_free(res);
  netns_exec_request_free(req);

  printf("abi_c: ok (libnetns_exec %s)\n", netns_exec_version());
  return 0;
}
