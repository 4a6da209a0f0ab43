#include "process_setup.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::holder {

sigset_t block_all_signals() {
  sigset_t all;
  sigfillset(&all);
  // SIGKILL and SIGSTOP cannot be blocked; the kernel silently drops them from the mask.
  if (::sigprocmask(SIG_SETMASK, &all, nullptr) != 0) throw Error::sys("sigprocmask", "", errno);
  return all;
}

void sanitize_descriptors() {
  for (int want = 0; want <= 2; ++want) {
    if (::fcntl(want, F_GETFD) >= 0) continue;
    // Lowest free number: `want` itself, since 0..want-1 are open by now.
    UniqueFd null = open_fd("/dev/null", O_RDWR);
    if (null.get() != want)
      throw Error::sys("open", "/dev/null", EBADF, "stdio could not be restored");
    (void)null.release();
  }
  // close_range(2) is a feature test, not a version guess: fall back to a
  // bounded loop when the kernel does not have it.
  if (::syscall(SYS_close_range, 3u, ~0u, 0u) == 0) return;
  rlimit lim{};
  rlim_t top = ::getrlimit(RLIMIT_NOFILE, &lim) == 0 ? lim.rlim_cur : 1024;
  if (top > 65536) top = 65536;
  for (rlim_t fd = 3; fd < top; ++fd) ::close(static_cast<int>(fd));
}

}  // namespace netns::holder
