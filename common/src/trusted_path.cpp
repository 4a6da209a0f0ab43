#include "netns/trusted_path.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/path.hpp"
#include "netns/unix_address.hpp"

namespace netns::trust {

namespace {

// The kernel's limit on the symlinks one lookup follows (MAXSYMLINKS).
constexpr int kMaxSymlinks = 40;

bool on_procfs(int fd) {
  struct statfs fs {};
  return ::fstatfs(fd, &fs) == 0 && static_cast<unsigned long>(fs.f_type) == PROC_SUPER_MAGIC;
}

bool on_read_only_mount(int fd) {
  struct statvfs vfs {};
  return ::fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0;
}

// The components of `text`, last first (a stack: the next one is back()).
void push_components(std::vector<std::string>& stack, std::string_view text) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= text.size()) {
    size_t slash = text.find('/', at);
    if (slash == std::string_view::npos) slash = text.size();
    if (slash > at) parts.emplace_back(text.substr(at, slash - at));
    at = slash + 1;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) stack.push_back(std::move(*it));
}

// `shown` is always absolute here: the walk starts at "/".
std::string parent_text(const std::string& shown) { return split_path(shown).first; }

std::string hop_text(std::string_view hop, std::string_view named) {
  if (hop == named) return quote(hop);
  return quote(hop) + " (on the way to " + quote(named) + ")";
}

enum class Step { found, missing, refused };

// One resolution from a directory: `rest` component by component, every
// symlink followed here. The descriptor the walk stands on (`cur`) is the
// caller's `start` until the walk leaves it: no dup, so that with the
// caller's own descriptor and the one being looked at, three at most are open.
class Walker {
 public:
  Walker(const Owners& owners, std::string_view named) : owners_(owners), named_(named) {}

  // `judge_last_dir`: whether the directory the walk ends on (when it ends on
  // one) is judged here; the holder directory is not (directory_chain is).
  Step resolve(int start, std::string start_shown, std::string_view rest, bool judge_last_dir,
               UniqueFd* out, struct stat* out_st) {
    std::vector<std::string> stack;
    push_components(stack, rest);
    int cur = start;
    UniqueFd owned;  // cur, when it is not `start`
    std::string shown = std::move(start_shown);
    bool cur_procfs = on_procfs(cur);
    struct stat st {};
    if (::fstat(cur, &st) != 0) throw Error::sys("fstat", shown, errno);
    while (!stack.empty()) {
      const std::string name = std::move(stack.back());
      stack.pop_back();
      const bool last = stack.empty();
      if (name == ".") continue;
      const std::string next_shown = name == ".." ? parent_text(shown) : join_path(shown, name);
      // ".." goes back to a directory already walked (or the root stays
      // the root): it is judged again like any directory entered.
      UniqueFd next(::openat(cur, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      if (!next) {
        if (errno == ENOENT) return Step::missing;
        throw Error::sys("open", next_shown, errno);
      }
      if (::fstat(next.get(), &st) != 0) throw Error::sys("fstat", next_shown, errno);
      if (S_ISLNK(st.st_mode) && cur_procfs) {
        // The kernel's link: only the kernel can follow it. One descriptor
        // at a time: the link's own goes before the kernel opens its end.
        next.reset();
        UniqueFd end(::openat(cur, name.c_str(), O_PATH | O_CLOEXEC));
        if (!end) {
          if (errno == ENOENT) return Step::missing;
          throw Error::sys("open", last ? named_ : std::string_view(next_shown), errno);
        }
        if (::fstat(end.get(), &st) != 0) throw Error::sys("fstat", next_shown, errno);
        if (!last) {
          if (!S_ISDIR(st.st_mode)) throw Error::sys("open", next_shown, ENOTDIR);
          if (!on_procfs(end.get())) {
            failure_ =
                fail(kEveryHop, Errc::untrusted,
                     "the kernel's link " + hop_text(next_shown, named_) +
                         " leads out of /proc, to a directory that cannot be walked from \"/\"",
                     "name the directory itself, not a /proc/PID/root, cwd or fd link to it");
            return Step::refused;
          }
        }
        owned = std::move(end);
        cur = owned.get();
        shown = next_shown;
        continue;  // cur_procfs stays true
      }
      if (S_ISLNK(st.st_mode)) {
        const bool judged = !skip_symlink_owner_;
        skip_symlink_owner_ = false;
        if (judged && !owners_.trusted(st.st_uid)) {
          failure_ =
              fail(kEveryHop, Errc::untrusted,
                   "symlink " + hop_text(next_shown, named_) + " is owned by uid " +
                       std::to_string(st.st_uid) + ", not " + owners_.text() +
                       ": whoever owns a symlink on the way chooses where the path leads",
                   "remove that symlink and name the real path" + owners_.or_trust("its owner"));
          return Step::refused;
        }
        if (++symlinks_ > kMaxSymlinks) throw Error::sys("open", named_, ELOOP);
        std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 256) + 1, '\0');
        ssize_t n = ::readlinkat(next.get(), "", target.data(), target.size());
        if (n < 0) throw Error::sys("readlink", next_shown, errno);
        if (static_cast<size_t>(n) >= target.size())
          throw Error::sys("readlink", next_shown, ENAMETOOLONG);
        target.resize(static_cast<size_t>(n));
        next.reset();
        push_components(stack, target);
        if (!target.empty() && target[0] == '/') {
          owned = open_fd("/", O_PATH | O_DIRECTORY);
          cur = owned.get();
          shown = "/";
          cur_procfs = false;
          if (::fstat(cur, &st) != 0) throw Error::sys("fstat", "/", errno);
          if (Step s = judge_directory(cur, st, "/"); s != Step::found) return s;
        }
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        const bool procfs = on_procfs(next.get());
        // The directory the walk ends on is known only once nothing is
        // left to walk: a symlink's text may still come.
        if (!procfs && (!stack.empty() || judge_last_dir))
          if (Step s = judge_directory(next.get(), st, next_shown); s != Step::found) return s;
        owned = std::move(next);
        cur = owned.get();
        shown = next_shown;
        cur_procfs = procfs;
        continue;
      }
      if (!last) throw Error::sys("open", next_shown, ENOTDIR);
      if (out_st) *out_st = st;
      *out = std::move(next);
      return Step::found;
    }
    // Ended on a directory: `cur` (`start` itself when nothing was walked).
    if (out_st) *out_st = st;
    *out = owned ? std::move(owned) : dup_fd(cur);
    return Step::found;
  }

  Finding failure() { return std::move(failure_); }
  // The next symlink is the named entry itself: its owner is the "link
  // owner" check's, not this walk's.
  void skip_next_symlink_owner() { skip_symlink_owner_ = true; }

 private:
  // Sticky is fine on the way: only the holder directory must not be even
  // that (directory_chain).
  Step judge_directory(int fd, const struct stat& st, const std::string& shown) {
    std::string why = directory_problem(st, true, on_read_only_mount(fd), owners_);
    if (why.empty()) return Step::found;
    failure_ =
        fail(kEveryHop, Errc::untrusted,
             "directory " + hop_text(shown, named_) + " " + why + " (mode " +
                 mode_octal(st.st_mode) + "): whoever can write it chooses where the path leads",
             "chown root and chmod go-w that directory (a sticky directory such as /tmp is "
             "fine)" +
                 owners_.or_trust("its owner"));
    return Step::refused;
  }

  const Owners& owners_;
  std::string named_;
  int symlinks_ = 0;
  bool skip_symlink_owner_ = false;
  Finding failure_;
};

}  // namespace

Finding walk_path(std::string_view path, const Owners& owners, const WalkOptions& options,
                  WalkedPath* out) {
  *out = WalkedPath{};
  std::string absolute(path);
  if (absolute.empty() || absolute[0] != '/') {
    std::string cwd(4096, '\0');
    if (::getcwd(cwd.data(), cwd.size()) == nullptr) throw Error::sys("getcwd", path, errno);
    cwd.resize(cwd.find('\0'));
    absolute = join_path(cwd, absolute);
  }
  // The directory part and the named entry, as the path names them.
  auto [dir_text, name] = split_path(absolute);
  out->name = name.empty() ? std::string(".") : std::move(name);

  Walker walker(owners, path);
  {
    UniqueFd root = open_fd("/", O_PATH | O_DIRECTORY);
    struct stat st {};
    if (::fstat(root.get(), &st) != 0) throw Error::sys("fstat", "/", errno);
    if (std::string why = directory_problem(st, false, false, owners);
        !why.empty() && dir_text != "/")
      return fail(kEveryHop, Errc::untrusted, "directory \"/\" " + why,
                  "chown root and chmod go-w /");
    Step s = walker.resolve(root.get(), "/", dir_text, options.judge_entry_dir, &out->dir, nullptr);
    if (s == Step::refused) return walker.failure();
    if (s == Step::missing) return pass(kEveryHop, "");
  }
  struct stat dir_st {};
  if (::fstat(out->dir.get(), &dir_st) != 0) throw Error::sys("fstat", dir_text, errno);
  if (!S_ISDIR(dir_st.st_mode)) throw Error::sys("open", dir_text, ENOTDIR);

  UniqueFd entry(::openat(out->dir.get(), out->name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!entry) {
    if (errno == ENOENT) return pass(kEveryHop, "");
    throw Error::sys("open", path, errno);
  }
  if (::fstat(entry.get(), &out->entry) != 0) throw Error::sys("fstat", path, errno);
  if (!options.follow_entry || !S_ISLNK(out->entry.st_mode)) {
    out->target_st = out->entry;
    out->target = std::move(entry);
    out->found = true;
    return pass_with(kEveryHop, [&] {
      return quote(path) + ": every directory and symlink on the way trusted";
    });
  }
  entry.reset();
  // The entry is a symlink: what it leads through is judged like the rest
  // (its own owner is the "link owner" check's). Walked as its name, so the
  // procfs case (the kernel's link) is handled as anywhere.
  walker.skip_next_symlink_owner();
  Step s = walker.resolve(out->dir.get(), dir_text, out->name, true, &out->target, &out->target_st);
  if (s == Step::refused) return walker.failure();
  if (s == Step::missing) return pass(kEveryHop, "");
  out->found = true;
  return pass_with(
      kEveryHop, [&] { return quote(path) + ": every directory and symlink on the way trusted"; });
}

UniqueFd open_trusted_regular(const std::string& path, const Owners& owners) {
  WalkedPath walked;
  WalkOptions options;
  options.judge_entry_dir = true;  // no holder directory: the file's own is a directory on the way
  Finding f = walk_path(path, owners, options, &walked);
  if (!f.ok) throw f.error();
  if (!walked.found) throw Error::sys("open", path, ENOENT);
  // Reopened through the descriptor that was walked to, not the path again.
  return open_regular_at(AT_FDCWD, fd_path(walked.target.get()), 0, path);
}

}  // namespace netns::trust
