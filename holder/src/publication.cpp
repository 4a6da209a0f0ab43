#include "publication.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "holder_dir.hpp"
#include "log.hpp"
#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/trust.hpp"

namespace netns::holder {

namespace {

std::optional<std::string> read_link(int dirfd, const std::string& name) {
  char buf[256];
  ssize_t n = ::readlinkat(dirfd, name.c_str(), buf, sizeof buf);
  if (n < 0 || static_cast<size_t>(n) >= sizeof buf) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

void remove_quietly(int dirfd, const std::string& name) { ::unlinkat(dirfd, name.c_str(), 0); }

// One line per leftover we are about to replace, so an operator can see that
// a previous holder died without cleaning up (or that someone else wrote here).
void report_leftovers(int dirfd, const PublishPlan& plan) {
  std::string shown = join_path(plan.dir_shown, plan.names.record);
  try {
    if (auto old = read_record_at(dirfd, plan.names.record, shown)) {
      if (old->cluster_id != plan.cluster_id)
        log_warning("replacing " + quote(shown) + ", which describes cluster " +
                    quote(old->cluster_id));
      else
        log_line("replacing the record of an earlier holder (pid " + std::to_string(old->pid) +
                 ") that no longer holds the lock: " + quote(shown));
    }
  } catch (const Error& e) {
    log_warning("replacing a damaged record: " + e.describe());
  }
  if (auto target = read_link(dirfd, plan.names.ns_link))
    log_line("replacing the stale link " + quote(join_path(plan.dir_shown, plan.names.ns_link)) +
             " -> " + quote(*target));
}

// Leftovers are replaced only when they are ours to replace: a file under one
// of our names owned by anyone but root or us was not written by a holder.
void refuse_foreign_files(int dirfd, const PublishPlan& plan) {
  const trust::Owners owners = holder_owners();
  const std::pair<const char*, const std::string*> files[] = {
      {trust::kLinkOwner, &plan.names.ns_link},
      {trust::kRecordOwner, &plan.names.record},
      {trust::kSocketOwner, &plan.names.socket}};
  for (const auto& [check, name] : files) {
    struct stat st {};
    if (::fstatat(dirfd, name->c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    trust::Finding f =
        trust::file_owner(check, st, "file", join_path(plan.dir_shown, *name), owners);
    if (!f.ok) throw f.error().context("refusing to publish");
  }
}

}  // namespace

Published publish(int dirfd, const PublishPlan& plan, const Identity& self,
                  const std::vector<ClientAddress>& addresses) {
  refuse_foreign_files(dirfd, plan);
  report_leftovers(dirfd, plan);
  Published p;
  try {
    if (plan.socket_allow) {
      p.listener = publish_listener(dirfd, plan.names.socket, plan.dir_shown, *plan.socket_allow);
    } else {
      remove_quietly(dirfd, plan.names.socket);  // a dead socket-mode holder's
    }
    if (!plan.link) {
      // Before the new record appears: the old link must not be paired with it.
      remove_quietly(dirfd, plan.names.ns_link);
    }
    p.record = make_record(self, plan.cluster_id,
                           plan.socket_allow ? std::optional(plan.names.socket) : std::nullopt);
    p.record.client_addresses = addresses;
    write_file_atomic(dirfd, plan.names.record, serialize_record(p.record), 0644, plan.dir_shown);
    if (plan.link) {
      std::string target = ns_link_target(self);
      symlink_atomic(dirfd, plan.names.ns_link, target, plan.dir_shown);
      p.link_target = target;
    }
  } catch (...) {
    // We hold the lock, so nothing under these names can be a live holder's:
    // take everything down rather than leave a half-published set.
    remove_quietly(dirfd, plan.names.ns_link);
    remove_quietly(dirfd, plan.names.record);
    if (p.listener) remove_quietly(dirfd, plan.names.socket);
    throw;
  }
  return p;
}

void republish_addresses(int dirfd, const PublishPlan& plan, Published& ours,
                         const std::vector<ClientAddress>& addresses) {
  const std::string shown = join_path(plan.dir_shown, plan.names.record);
  try {
    auto current = read_record_at(dirfd, plan.names.record, shown);
    if (!current || *current != ours.record) {
      log_warning(quote(shown) +
                  " is no longer the record this holder wrote; not updating its "
                  "client addresses (is another holder writing to this directory?)");
      return;
    }
    HolderRecord next = ours.record;
    next.client_addresses = addresses;
    write_file_atomic(dirfd, plan.names.record, serialize_record(next), 0644, plan.dir_shown);
    ours.record = std::move(next);
    std::string list = format_client_addresses(addresses);
    log_line("client addresses changed; republished " + quote(shown) + ": " +
             (list.empty() ? std::string("none") : list));
  } catch (const Error& e) {
    log_warning("could not republish the client addresses: " + e.describe());
  }
}

std::vector<std::string> withdraw(int dirfd, const PublishPlan& plan, const Published& ours) {
  // Reverse order of publication: the link goes first, so a reader never
  // finds a link whose record is already gone. Between each comparison and
  // its unlink another holder could only step in if it took the lock, which
  // we still hold; the comparison protects against a holder that took over
  // after our lock file was deleted or the directory was replaced.
  std::vector<std::string> removed;
  const HolderFileNames& n = plan.names;
  if (ours.link_target && read_link(dirfd, n.ns_link) == ours.link_target &&
      ::unlinkat(dirfd, n.ns_link.c_str(), 0) == 0)
    removed.push_back(n.ns_link);
  try {
    auto record = read_record_at(dirfd, n.record, join_path(plan.dir_shown, n.record));
    if (record && *record == ours.record && ::unlinkat(dirfd, n.record.c_str(), 0) == 0)
      removed.push_back(n.record);
  } catch (const Error&) {
    // Not ours (damaged or foreign): leave it.
  }
  if (ours.listener) {
    struct stat st {};
    if (::fstatat(dirfd, n.socket.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode) &&
        NsId{st.st_dev, st.st_ino} == ours.listener->file &&
        ::unlinkat(dirfd, n.socket.c_str(), 0) == 0)
      removed.push_back(n.socket);
  }
  return removed;
}

}  // namespace netns::holder
