/* The floor of any program that stands in for another: `exec_floor PROGRAM
 * ARGS...` execs PROGRAM with ARGS in place and does nothing else. C and
 * libc only, linked like netns-exec (dynamically against libc), so what it
 * costs is one more execve, the dynamic loader and libc's start-up — what
 * every shim, a ccache masquerade link included, pays before the real
 * program starts. shim_paired_bench measures the rbd shim against it. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  execv(argv[1], argv + 1);
  perror(argv[1]);
  return 127;
}
