// Where clone3 is hidden (old kernels, container seccomp profiles that
// answer ENOSYS so that libc falls back), the engine still works: it uses
// glibc's clone() (the clone syscall), never clone3 directly. A seccomp filter in a forked test
// child stands in for such a kernel.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include <gtest/gtest.h>

#include "netns/test/support.hpp"
#include "netns_exec/spawn/spawn.hpp"

namespace netns::spawn {
namespace {

#if defined(__x86_64__) && defined(SYS_clone3)

void hide_clone3() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
    _exit(90);
}

Command sh(const char* script) {
  Command c;
  c.argv = {"/bin/sh", "-c", script};
  return c;
}

TEST(SpawnFallbackDeathTest, WithoutClone3TheEngineWorks) {
  (void)run(sh("exit 0"));
  EXPECT_EXIT(
      {
        hide_clone3();
        const std::vector<int> before = test::open_fds();
        Result r = run(sh("echo fallback; exit 3"));
        if (r.outcome != Outcome::exited(3) || r.out.data != "fallback\n") _exit(92);
        Result missing = run(Command{.argv = {"/nonexistent-netns-spawn"}});
        if (missing.outcome.shell_exit_code() != 127) _exit(93);
        if (test::open_fds() != before) _exit(94);
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

#else

TEST(SpawnFallbackDeathTest, WithoutClone3TheEngineWorks) {
  GTEST_SKIP() << "the seccomp filter here is written for x86_64";
}

#endif

}  // namespace
}  // namespace netns::spawn
