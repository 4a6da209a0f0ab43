#include "netns_exec/inspect/socket_owners.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

#include "netns/fd.hpp"

namespace netns::inspect {

namespace {

struct DirClose {
  void operator()(DIR* d) const noexcept { ::closedir(d); }
};
using Dir = std::unique_ptr<DIR, DirClose>;

// Adopts `fd` (opened close-on-exec through netns/fd.hpp); nullptr on failure.
Dir dir_of(UniqueFd fd) {
  DIR* d = ::fdopendir(fd.get());
  if (d == nullptr) return nullptr;
  (void)fd.release();
  return Dir(d);
}

std::optional<UniqueFd> open_dir_at(int dirfd, const char* name) {
  try {
    return open_at_if_exists(dirfd, name, O_RDONLY | O_DIRECTORY);
  } catch (const std::exception&) {
    return std::nullopt;  // EACCES, ESRCH: the process is gone or not ours to read
  }
}

std::optional<uint64_t> socket_inode(std::string_view link) {
  constexpr std::string_view prefix = "socket:[";
  if (link.size() < prefix.size() + 2 || link.substr(0, prefix.size()) != prefix ||
      link.back() != ']')
    return std::nullopt;
  uint64_t ino = 0;
  auto digits = link.substr(prefix.size(), link.size() - prefix.size() - 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ino);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return ino;
}

}  // namespace

std::unordered_map<uint64_t, pid_t> find_socket_owners(const std::unordered_set<uint64_t>& wanted,
                                                       const std::string& proc) {
  std::unordered_map<uint64_t, pid_t> owners;
  if (wanted.empty()) return owners;
  Dir procdir = dir_of(open_fd(proc, O_RDONLY | O_DIRECTORY));
  if (!procdir) return owners;
  while (dirent* p = ::readdir(procdir.get())) {
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(p->d_name, p->d_name + std::strlen(p->d_name), pid);
    if (ec != std::errc() || *end != '\0') continue;
    std::string fd_dir = std::string(p->d_name) + "/fd";
    auto fdfd = open_dir_at(::dirfd(procdir.get()), fd_dir.c_str());
    if (!fdfd) continue;
    int fds_at = fdfd->get();
    Dir fds = dir_of(std::move(*fdfd));
    if (!fds) continue;
    while (dirent* e = ::readdir(fds.get())) {
      if (e->d_name[0] == '.') continue;
      char target[64];
      ssize_t n = ::readlinkat(fds_at, e->d_name, target, sizeof target);
      if (n <= 0 || static_cast<size_t>(n) >= sizeof target) continue;
      auto ino = socket_inode(std::string_view(target, static_cast<size_t>(n)));
      if (!ino || !wanted.contains(*ino)) continue;
      owners.emplace(*ino, pid);
      if (owners.size() == wanted.size()) return owners;
    }
  }
  return owners;
}

}  // namespace netns::inspect
