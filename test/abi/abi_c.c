/* A C program built against the *installed* libnetns_exec via pkg-config:
 *   abi_c NETNS_FILE EXPECTED_NET_INODE
 * Runs readlink /proc/self/ns/net in the namespace, checks the answer, then
 * checks that a missing file is refused (125) without running anything. */
#include <netns_exec/netns_exec.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const netns_exec_result *res) {
  fprintf(stderr, "abi_c: %s (exit %d, error: %s)\n", what, netns_exec_result_exit_code(res),
          netns_exec_result_error(res));
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: abi_c NETNS_FILE EXPECTED_NET_INODE\n");
    return 2;
  }
  char expected[64];
  snprintf(expected, sizeof expected, "net:[%s]\n", argv[2]);

  netns_exec_request *req = netns_exec_request_new();
  const char *cmd[] = {"readlink", "/proc/self/ns/net", NULL};
  if (req == NULL || netns_exec_request_set_argv(req, cmd) != 0 ||
      netns_exec_request_set_netns(req, argv[1]) != 0 ||
      netns_exec_request_set_identity(req, NETNS_EXEC_IDENTITY_REQUIRE) != 0 ||
      netns_exec_request_set_timeout_ms(req, 10000) != 0) {
    fprintf(stderr, "abi_c: building the request failed\n");
    return 1;
  }
  netns_exec_result *res = netns_exec_run(req);
  if (res == NULL) return fail("no result", NULL);
  size_t len = 0;
  const char *out = netns_exec_result_stdout(res, &len);
  if (netns_exec_result_outcome(res) != NETNS_EXEC_OUTCOME_EXITED ||
      netns_exec_result_exit_code(res) != 0)
    return fail("the command did not succeed", res);
  if (len != strlen(expected) || strcmp(out, expected) != 0) {
    fprintf(stderr, "abi_c: ran in %s, expected %s", out, expected);
    return 1;
  }
  netns_exec_result_free(res);

  netns_exec_request_set_netns(req, "/nonexistent/abi.net.ns");
  res = netns_exec_run(req);
  if (netns_exec_result_outcome(res) != NETNS_EXEC_OUTCOME_REFUSED ||
      netns_exec_result_exit_code(res) != 125 ||
      strstr(netns_exec_result_error(res), "ENOENT") == NULL)
    return fail("a missing file was not refused as expected", res);
  netns_exec_result_free(res);
  netns_exec_request_free(req);
  printf("abi_c: ok (libnetns_exec %s)\n", netns_exec_version());
  return 0;
}
