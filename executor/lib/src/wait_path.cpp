#include "wait_path.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::exec::detail {

namespace {

using Clock = std::chrono::steady_clock;

// The directory to watch: the file's own directory if it exists, else its
// nearest existing ancestor (the holder may create the directory itself).
std::string nearest_existing_dir(const std::string& path) {
  std::string dir = split_path(path).first;
  for (int depth = 0; depth < 256; ++depth) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return dir;
    if (dir == "/" || dir == ".") return dir;
    dir = split_path(dir).first;
  }
  return "/";
}

int poll_timeout_ms(Clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return 0;
  return left.count() > 1'000'000'000 ? 1'000'000'000 : static_cast<int>(left.count());
}

// One inotify descriptor per thread, for the thread's life. Closing an
// inotify descriptor tears its fsnotify group down and waits for an SRCU
// grace period (milliseconds, sometimes more): that wait sat between the
// holder's publish and resolve() returning. Per thread, because a wait reads
// every event of its descriptor; a thread waits for one path at a time.
// Removing a watch does not wait (the mark is freed asynchronously).
int thread_inotify() {
  thread_local UniqueFd fd = make_inotify(IN_NONBLOCK);
  return fd.get();
}

void drain(int fd) {
  alignas(inotify_event) char buf[4096];
  while (::read(fd, buf, sizeof buf) > 0) {}
}

// Removes the watch when the wait ends, however it ends.
struct Watch {
  int fd;
  int wd = -1;
  ~Watch() {
    if (wd >= 0) ::inotify_rm_watch(fd, wd);
  }
};

}  // namespace

bool wait_for_path(const std::string& path, std::chrono::nanoseconds wait,
                   const std::function<bool()>& attempt) {
  if (attempt()) return true;
  if (wait.count() <= 0) return false;
  const auto deadline = Clock::now() + wait;

  const int inotify = thread_inotify();
  drain(inotify);  // events of an earlier wait (IN_IGNORED of its removed watch)
  Watch watch{inotify};
  std::string watched;
  // Bounded: every pass either sees an event or runs out the deadline.
  for (;;) {
    std::string dir = nearest_existing_dir(path);
    if (dir != watched) {
      int wd = ::inotify_add_watch(inotify, dir.c_str(),
                                   IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_CLOSE_WRITE |
                                       IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR);
      if (wd < 0) {
        // The directory vanished between stat and the watch: look again.
        if (errno == ENOENT) continue;
        throw Error::sys("inotify_add_watch", dir, errno,
                         "fs.inotify.max_user_watches may be exhausted on this node");
      }
      if (watch.wd >= 0 && watch.wd != wd) ::inotify_rm_watch(inotify, watch.wd);
      watch.wd = wd;
      watched = dir;
    }
    // Try again only now that the watch is in place: a file published between
    // the previous attempt and the watch would otherwise never wake us.
    if (attempt()) return true;
    int timeout = poll_timeout_ms(deadline);
    if (timeout == 0) return false;
    pollfd pfd{inotify, POLLIN, 0};
    int n = ::poll(&pfd, 1, timeout);
    if (n < 0 && errno != EINTR) throw Error::sys("poll", "inotify", errno);
    // Drain; what happened does not matter, only that something did.
    drain(inotify);
    // IN_DELETE_SELF/IN_MOVE_SELF: the next pass picks a new directory.
    struct stat st {};
    if (::stat(watched.c_str(), &st) != 0) watched.clear();
  }
}

}  // namespace netns::exec::detail
