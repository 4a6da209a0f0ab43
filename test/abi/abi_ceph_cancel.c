/* abi_ceph_cancel LINK DIR: the C ABI's Ceph operations against the
 * installed library and a real holder. DIR holds stand-in programs (rbd)
 * and a stand-in sysfs (DIR/sys) written by abi_test.sh: rbd logs
 * "map-start" to DIR/log, sleeps 1 s, then maps by creating
 * DIR/sys/devices/0 and prints /dev/rbd0; "rbd unmap" removes it.
 * Checks: a handle fired before the start runs nothing; fired while the map
 * runs (from another thread), the map finishes, is undone, and the result
 * says CANCELLED / UNDONE. Exit 0 when all hold. */
#define _GNU_SOURCE
#include <netns_exec/netns_exec.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char log_path[4096];

static int fail(const char* what, const netns_exec_result* res) {
  fprintf(stderr, "abi_ceph_cancel: %s (outcome %d, cancel state %s, exit %d): %s\n", what,
          (int)netns_exec_result_outcome(res),
          netns_exec_cancel_state_name(netns_exec_result_cancel_state(res)),
          netns_exec_result_exit_code(res), netns_exec_result_error(res));
  return 1;
}

static int log_has(const char* line) {
  char buf[4096] = {0};
  FILE* f = fopen(log_path, "re");
  if (f == NULL) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return strstr(buf, line) != NULL;
}

static void* fire_when_started(void* arg) {
  for (int i = 0; i < 2000 && !log_has("map-start"); ++i) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  netns_exec_cancel_fire((netns_exec_cancel*)arg);
  return NULL;
}

static netns_exec_ceph* map_op(const char* dir) {
  char path[4096];
  netns_exec_ceph* op = netns_exec_ceph_new(NETNS_EXEC_CEPH_MAP);
  netns_exec_ceph_set(op, "pool", "rbd");
  netns_exec_ceph_set(op, "image", "img");
  netns_exec_ceph_set(op, "mon", "198.18.0.10:6789");
  netns_exec_ceph_set(op, "id", "admin");
  netns_exec_ceph_set(op, "keyfile", "/etc/ceph/keyfile");
  snprintf(path, sizeof path, "%s/rbd", dir);
  netns_exec_ceph_set(op, "rbd_program", path);
  snprintf(path, sizeof path, "%s/sys", dir);
  netns_exec_ceph_set(op, "sys_bus_rbd", path);
  snprintf(path, sizeof path, "%s/locks", dir);
  netns_exec_ceph_set(op, "lock_dir", path);
  netns_exec_ceph_set(op, "modprobe_program", "/bin/false");
  return op;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  snprintf(log_path, sizeof log_path, "%s/log", argv[2]);
  netns_exec_request* req = netns_exec_request_new();
  netns_exec_request_set_netns(req, argv[1]);
  netns_exec_request_set_cancel_grace_ms(req, 10000);
  netns_exec_ceph* op = map_op(argv[2]);
  int rc = 0;

  netns_exec_cancel* early = netns_exec_cancel_new();
  netns_exec_cancel_fire(early);
  netns_exec_request_set_cancel(req, early);
  netns_exec_result* res = netns_exec_ceph_run(req, op);
  if (netns_exec_result_outcome(res) != NETNS_EXEC_OUTCOME_REFUSED ||
      netns_exec_result_errc(res) != NETNS_EXEC_ERR_CANCELLED ||
      netns_exec_result_exit_code(res) != 125 || access(log_path, F_OK) == 0)
    rc = fail("a handle fired before the start must run nothing", res);
  netns_exec_result_free(res);
  netns_exec_cancel_free(early);

  netns_exec_cancel* cancel = netns_exec_cancel_new();
  netns_exec_request_set_cancel(req, cancel);
  pthread_t t;
  pthread_create(&t, NULL, fire_when_started, cancel);
  res = netns_exec_ceph_run(req, op);
  pthread_join(t, NULL);
  char dev[4096];
  snprintf(dev, sizeof dev, "%s/sys/devices/0", argv[2]);
  if (netns_exec_result_outcome(res) != NETNS_EXEC_OUTCOME_CANCELLED ||
      netns_exec_result_cancel_state(res) != NETNS_EXEC_CANCEL_UNDONE ||
      netns_exec_result_exit_code(res) != 137 || strcmp(netns_exec_result_device(res), "") != 0 ||
      strstr(netns_exec_result_error(res), "/dev/rbd0") == NULL)
    rc = fail("a map cancelled while it ran must be undone and say so", res);
  if (access(dev, F_OK) == 0 || !log_has("map-done") || !log_has("unmap /dev/rbd0")) {
    fprintf(stderr, "abi_ceph_cancel: the map did not finish and get unmapped\n");
    rc = 1;
  }
  netns_exec_result_free(res);
  netns_exec_cancel_free(cancel);
  netns_exec_ceph_free(op);
  netns_exec_request_free(req);
  return rc;
}
