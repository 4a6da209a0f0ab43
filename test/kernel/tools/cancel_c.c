/* One Ceph operation through the holder by the C ABI, its cancel handle fired
 * at a chosen point (scenario cancel):
 *   kernel_cancel_c CLUSTER_ID CONFIG DELAY_MS GRACE_MS map POOL IMAGE MON KEYFILE
 *   kernel_cancel_c CLUSTER_ID CONFIG DELAY_MS GRACE_MS mount TARGET MON KEYFILE
 *   kernel_cancel_c CLUSTER_ID CONFIG DELAY_MS GRACE_MS unmap DEVICE
 *   kernel_cancel_c CLUSTER_ID CONFIG DELAY_MS GRACE_MS umount TARGET
 * DELAY_MS -1 fires the handle before netns_exec_ceph_run; N fires it N ms
 * after the call began (a thread); +N fires it N ms after the command's
 * process (a child of this one) appeared: mid-command, whatever the machine's
 * speed. GRACE_MS is the cancel grace.
 * Prints one line:
 *   CANCEL c OP delay_ms=DELAY_MS grace_ms=G state=STATE outcome=N exit=E device=DEV leftover=L
 * (device and leftover "-" when empty) and the result's error on stderr.
 * Exit 0 when the run returned a result, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "netns_exec/netns_exec.h"

struct firing {
  netns_exec_cancel* cancel;
  long delay_ms;
  int after_start;
  atomic_int done; /* the call returned: stop waiting for its command */
};

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Whether a process whose parent is this one exists (/proc/N/stat: the
 * parent is the second field after the command's closing parenthesis). */
static int have_child(void) {
  DIR* proc = opendir("/proc");
  if (proc == NULL) return 0;
  int found = 0;
  struct dirent* e;
  while (!found && (e = readdir(proc)) != NULL) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE* f = fopen(path, "r");
    if (f == NULL) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char* close = strrchr(buf, ')');
    long ppid = 0;
    char state;
    if (close != NULL && sscanf(close + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)getpid())
      found = 1;
  }
  closedir(proc);
  return found;
}

static void* fire_later(void* arg) {
  struct firing* f = arg;
  if (f->after_start) {
    /* Bounded: the operation's own timeout is 90 s. */
    for (int i = 0; i < 18000 && !atomic_load(&f->done) && !have_child(); i++) sleep_ms(5);
  }
  if (atomic_load(&f->done)) return NULL;
  sleep_ms(f->delay_ms);
  netns_exec_cancel_fire(f->cancel);
  return NULL;
}

static int usage(const char* self) {
  fprintf(stderr,
          "usage: %s CLUSTER_ID CONFIG DELAY_MS GRACE_MS map POOL IMAGE MON KEYFILE | mount "
          "TARGET MON KEYFILE | unmap DEVICE | umount TARGET\n",
          self);
  return 2;
}

static const char* or_dash(const char* s) { return s != NULL && *s != '\0' ? s : "-"; }

int main(int argc, char** argv) {
  if (argc < 7) return usage(argv[0]);
  const char* op_name = argv[5];
  int after_start = argv[3][0] == '+';
  long delay_ms = strtol(argv[3] + after_start, NULL, 10);
  long grace_ms = strtol(argv[4], NULL, 10);
  netns_exec_ceph* op = NULL;
  int fields = 0;
  if (strcmp(op_name, "map") == 0 && argc == 10) {
    op = netns_exec_ceph_new(NETNS_EXEC_CEPH_MAP);
    fields = netns_exec_ceph_set(op, "pool", argv[6]) | netns_exec_ceph_set(op, "image", argv[7]) |
             netns_exec_ceph_set(op, "mon", argv[8]) | netns_exec_ceph_set(op, "id", "admin") |
             netns_exec_ceph_set(op, "keyfile", argv[9]);
  } else if (strcmp(op_name, "mount") == 0 && argc == 9) {
    op = netns_exec_ceph_new(NETNS_EXEC_CEPH_MOUNT);
    fields = netns_exec_ceph_set(op, "type", "ceph") | netns_exec_ceph_set(op, "target", argv[6]) |
             netns_exec_ceph_set(op, "mon", argv[7]) | netns_exec_ceph_set(op, "id", "admin") |
             netns_exec_ceph_set(op, "keyfile", argv[8]);
  } else if (strcmp(op_name, "unmap") == 0 && argc == 7) {
    op = netns_exec_ceph_new(NETNS_EXEC_CEPH_UNMAP);
    fields = netns_exec_ceph_set(op, "device", argv[6]);
  } else if (strcmp(op_name, "umount") == 0 && argc == 7) {
    op = netns_exec_ceph_new(NETNS_EXEC_CEPH_UMOUNT);
    fields = netns_exec_ceph_set(op, "target", argv[6]);
  } else {
    return usage(argv[0]);
  }
  if (op == NULL || fields != 0) {
    fprintf(stderr, "kernel_cancel_c: cannot build the %s operation\n", op_name);
    return 1;
  }
  int kind = strcmp(op_name, "mount") == 0 || strcmp(op_name, "umount") == 0
                 ? NETNS_EXEC_KIND_CEPHFS
                 : NETNS_EXEC_KIND_RBD;
  netns_exec_request* req = netns_exec_request_new();
  netns_exec_cancel* cancel = netns_exec_cancel_new();
  if (req == NULL || cancel == NULL ||
      netns_exec_request_set_cluster(req, argv[1], argv[2], (netns_exec_config_kind)kind) != 0 ||
      netns_exec_request_set_timeout_ms(req, 90000) != 0 ||
      netns_exec_request_set_cancel_grace_ms(req, (uint64_t)grace_ms) != 0 ||
      netns_exec_request_set_cancel(req, cancel) != 0) {
    fprintf(stderr, "kernel_cancel_c: cannot build the request\n");
    return 1;
  }
  pthread_t thread;
  struct firing firing = {cancel, delay_ms, after_start, 0};
  int threaded = 0;
  if (delay_ms < 0) {
    netns_exec_cancel_fire(cancel);
  } else {
    if (pthread_create(&thread, NULL, fire_later, &firing) != 0) {
      fprintf(stderr, "kernel_cancel_c: cannot start the cancelling thread\n");
      return 1;
    }
    threaded = 1;
  }
  netns_exec_result* res = netns_exec_ceph_run(req, op);
  atomic_store(&firing.done, 1);
  if (threaded) pthread_join(thread, NULL);
  if (res == NULL) {
    fprintf(stderr, "kernel_cancel_c: netns_exec_ceph_run returned no result\n");
    return 1;
  }
  printf("CANCEL c %s delay_ms=%s grace_ms=%ld state=%s outcome=%d exit=%d device=%s leftover=%s\n",
         op_name, argv[3], grace_ms,
         netns_exec_cancel_state_name(netns_exec_result_cancel_state(res)),
         (int)netns_exec_result_outcome(res), netns_exec_result_exit_code(res),
         or_dash(netns_exec_result_device(res)), or_dash(netns_exec_result_leftover(res)));
  if (*netns_exec_result_error(res) != '\0') fprintf(stderr, "%s\n", netns_exec_result_error(res));
  netns_exec_result_free(res);
  netns_exec_request_free(req);
  netns_exec_cancel_free(cancel);
  netns_exec_ceph_free(op);
  return 0;
}
