#include "record_cache.hpp"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace netns::exec::detail {

namespace {

struct Key {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  timespec ctime{};
  bool operator==(const Key& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
           mtime.tv_nsec == o.mtime.tv_nsec && ctime.tv_sec == o.ctime.tv_sec &&
           ctime.tv_nsec == o.ctime.tv_nsec;
  }
};
Key key_of(const struct stat& st) {
  return Key{st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
}

struct Entry {
  Key key;  // the record file
  HolderRecord record;
  UniqueFd pidfd;  // the record's holder, verified once
  // The namespace the link `link` led to, once every check passed.
  std::optional<Key> link;
  UniqueFd nsfd;
  trust::NamespaceFacts ns;
};

// A plugin talks to a handful of holders; a small list, cleared when full.
constexpr size_t kMaxEntries = 16;
std::mutex mu;
std::vector<Entry>& entries() {
  static std::vector<Entry> e;
  return e;
}
Entry* find(const Key& k) {
  for (auto& e : entries())
    if (e.key == k) return &e;
  return nullptr;
}

bool alive(int pidfd) {
  pollfd p{pidfd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

// Drops every entry whose holder has exited, in one poll: its namespace
// (which only our descriptor may still keep alive) is released at once.
void sweep() {
  auto& all = entries();
  std::vector<pollfd> fds;
  fds.reserve(all.size());
  for (const auto& e : all)
    if (e.link) fds.push_back(pollfd{e.pidfd.get(), POLLIN, 0});
  if (fds.empty() || ::poll(fds.data(), fds.size(), 0) <= 0) return;
  size_t i = 0;
  std::erase_if(all, [&](const Entry& e) { return e.link && fds[i++].revents != 0; });
}

}  // namespace

std::optional<HolderRecord> cached_record(const struct stat& st) {
  std::lock_guard lock(mu);
  if (Entry* e = find(key_of(st))) return e->record;
  return std::nullopt;
}

void cache_record(const struct stat& st, const HolderRecord& record) {
  std::lock_guard lock(mu);
  sweep();
  if (find(key_of(st))) return;
  if (entries().size() >= kMaxEntries) entries().clear();
  entries().push_back(Entry{key_of(st), record, {}, std::nullopt, {}, {}});
}

HolderRef cached_holder(const struct stat& st) {
  std::lock_guard lock(mu);
  Entry* e = find(key_of(st));
  if (!e || !e->pidfd || !alive(e->pidfd.get())) return {};
  HolderRef h;
  h.pidfd.reset(::fcntl(e->pidfd.get(), F_DUPFD_CLOEXEC, 3));
  if (!h.pidfd) return {};
  h.pid = e->record.pid;
  h.start_time = e->record.pid_start_time;
  return h;
}

void cache_pidfd(const struct stat& st, int pidfd) {
  std::lock_guard lock(mu);
  Entry* e = find(key_of(st));
  if (!e || pidfd < 0) return;
  e->pidfd.reset(::fcntl(pidfd, F_DUPFD_CLOEXEC, 3));
}

std::optional<VerifiedNamespace> cached_namespace(const struct stat& link,
                                                  const struct stat& record) {
  std::lock_guard lock(mu);
  Entry* e = find(key_of(record));
  // A holder that exited: its link is followed afresh, and what that finds is the news.
  if (!e || !e->nsfd || !e->pidfd || !(e->link == key_of(link)) || !alive(e->pidfd.get()))
    return std::nullopt;
  UniqueFd fd(::fcntl(e->nsfd.get(), F_DUPFD_CLOEXEC, 3));
  if (!fd) return std::nullopt;
  return VerifiedNamespace{std::move(fd), e->ns};
}

void cache_namespace(const struct stat& link, const struct stat& record, int nsfd,
                     const trust::NamespaceFacts& facts) {
  std::lock_guard lock(mu);
  sweep();
  Entry* e = find(key_of(record));
  if (!e || !e->pidfd || nsfd < 0) return;
  UniqueFd fd(::fcntl(nsfd, F_DUPFD_CLOEXEC, 3));
  if (!fd) return;
  e->nsfd = std::move(fd);
  e->link = key_of(link);
  e->ns = facts;
}

void forget_namespace(const struct stat& record) {
  std::lock_guard lock(mu);
  if (Entry* e = find(key_of(record))) {
    e->nsfd.reset();
    e->link.reset();
  }
}

}  // namespace netns::exec::detail
