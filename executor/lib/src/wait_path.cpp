#include "wait_path.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>

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

}  // namespace

std::pair<std::string, std::string> split_path(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  auto slash = trimmed.rfind('/');
  if (slash == std::string::npos) return {".", trimmed};
  if (slash == 0) return {"/", trimmed.substr(1)};
  return {trimmed.substr(0, slash), trimmed.substr(slash + 1)};
}

bool wait_for_path(const std::string& path, std::chrono::nanoseconds wait,
                   const std::function<bool()>& attempt) {
  if (attempt()) return true;
  if (wait.count() <= 0) return false;
  const auto deadline = Clock::now() + wait;

  UniqueFd inotify = make_inotify(IN_NONBLOCK);
  int watch = -1;
  std::string watched;
  // Bounded: every pass either sees an event or runs out the deadline.
  for (;;) {
    std::string dir = nearest_existing_dir(path);
    if (dir != watched) {
      int wd = ::inotify_add_watch(inotify.get(), dir.c_str(),
                                   IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_CLOSE_WRITE |
                                       IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR);
      if (wd < 0) {
        // The directory vanished between stat and the watch: look again.
        if (errno == ENOENT) continue;
        throw Error::sys("inotify_add_watch", dir, errno,
                         "fs.inotify.max_user_watches may be exhausted on this node");
      }
      if (watch >= 0 && watch != wd) ::inotify_rm_watch(inotify.get(), watch);
      watch = wd;
      watched = dir;
    }
    // Try again only now that the watch is in place: a file published between
    // the previous attempt and the watch would otherwise never wake us.
    if (attempt()) return true;
    int timeout = poll_timeout_ms(deadline);
    if (timeout == 0) return false;
    pollfd pfd{inotify.get(), POLLIN, 0};
    int n = ::poll(&pfd, 1, timeout);
    if (n < 0 && errno != EINTR) throw Error::sys("poll", "inotify", errno);
    // Drain; what happened does not matter, only that something did.
    alignas(inotify_event) char buf[4096];
    while (::read(inotify.get(), buf, sizeof buf) > 0) {
    }
    // IN_DELETE_SELF/IN_MOVE_SELF: the next pass picks a new directory.
    struct stat st {};
    if (::stat(watched.c_str(), &st) != 0) watched.clear();
  }
}

}  // namespace netns::exec::detail
