#include "holder_addresses.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/net_snapshot.hpp"
#include "netns/trust.hpp"
#include "netns_exec/inspect/netns_thread.hpp"

namespace netns::cli {

namespace {

std::vector<std::string> record_names(int dirfd, const std::string& dir) {
  UniqueFd listing = dup_fd(dirfd);
  DIR* d = ::fdopendir(listing.get());
  if (!d) throw Error::sys("fdopendir", dir, errno);
  (void)listing.release();  // the DIR owns it now
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (!cluster_id_from_file_name(name, kRecordSuffix).empty()) names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

HolderAddresses read_one(int dirfd, const std::string& dir, const std::string& name) {
  HolderAddresses h;
  h.record_path = join_path(dir, name);
  h.cluster_id = cluster_id_from_file_name(name, kRecordSuffix);
  try {
    trust::QuietPasses quiet;  // only a failure is shown
    struct stat st {};
    auto record = read_record_at(dirfd, name, h.record_path, &st);
    if (!record) {
      h.problem = "the record disappeared while reading";
      return h;
    }
    const HolderFileNames names = holder_file_names(h.cluster_id);
    const std::string lock_shown = join_path(dir, names.lock);
    struct stat lock_st {};
    const bool lock_present =
        ::fstatat(dirfd, names.lock.c_str(), &lock_st, AT_SYMLINK_NOFOLLOW) == 0;
    // The one judge (netns/trust.hpp). fence-info opened no namespace:
    // the one the record names is the one its live holder must still be in.
    // From another pid namespace the record's pid means nothing to us (probe):
    // whether that holder lives cannot be told here.
    trust::Gathered g;
    g.record_shown = h.record_path;
    g.record = &*record;
    g.record_st = &st;
    g.cluster_id = h.cluster_id;
    g.opened = record->netns;
    g.lock_st = lock_present ? &lock_st : nullptr;
    g.lock_shown = lock_shown;
    trust::Policy policy;
    policy.pid = trust::Policy::Pid::probe;
    HolderRef holder;
    // Collected, not refused: the first failure ends the check, as it would
    // end resolve(), and is kept.
    const std::vector<trust::Finding> findings = trust::judge_holder(g, policy, holder);
    const trust::Finding* failed = trust::first_failure(findings);
    // A record nobody trusted wrote must not steer the fence.
    if (failed && std::string_view(failed->check) == trust::kRecordOwner) {
      h.problem = failed->error().describe();
      return h;
    }
    // Any other record root wrote names addresses the fence must cover, even
    // when its holder is gone (from before a reboot, dead, its pid another
    // process now): the mappings made through that namespace may still be
    // writing.
    h.pid = record->pid;
    h.addresses = record->client_addresses;
    // holder_alive passed (it is only asked where the record's pid names the holder).
    for (const trust::Finding& f : findings)
      if (f.ok && std::string_view(f.check) == trust::kHolderAlive) h.alive = true;
    if (failed && failed->code == Errc::stale_holder)
      h.alive = false;
    else if (failed)
      h.problem = failed->error().describe();
    if (!h.addresses) {
      if (!h.problem.empty()) h.problem += "; ";
      h.problem += "record version " + std::to_string(record->version) +
                   " does not publish client addresses; upgrade this holder, or "
                   "add its pod's "
                   "storage-network addresses to the fence by hand";
    }
  } catch (const Error& e) {
    h.problem = e.describe();
  }
  return h;
}

}  // namespace

std::vector<HolderAddresses> read_holder_dir(const std::string& dir, bool required) {
  auto fd = open_at_if_exists(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, dir);
  if (!fd) {
    if (!required) return {};
    HolderAddresses h;
    h.record_path = dir;
    h.problem =
        "no such holder directory (is --holder-dir the directory the "
        "holders publish in?)";
    return {h};
  }
  if (auto f = trust::directory_chain(fd->get(), dir, trust::Owners{}); !f.ok) {
    HolderAddresses h;
    h.record_path = dir;
    h.problem = f.error().describe() + " (its records are not used)";
    return {h};
  }
  std::vector<HolderAddresses> out;
  for (const auto& name : record_names(fd->get(), dir))
    out.push_back(read_one(fd->get(), dir, name));
  return out;
}

std::vector<ClientAddress> node_addresses(const std::string& netns_path) {
  UniqueFd sock;
  if (netns_path.empty()) {
    sock = open_route_socket(0, false);
  } else {
    UniqueFd ns = open_fd(netns_path, O_RDONLY);
    if (auto f = trust::network_namespace(trust::read_namespace(ns.get(), netns_path)); !f.ok)
      throw f.error().context("--node-netns");
    sock = inspect::socket_in_netns(ns.get(), netns_path, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
  }
  return read_net_snapshot(sock.get(), netns_path.empty() ? "own network namespace" : netns_path)
      .client_addresses;
}

std::vector<std::string> default_holder_dirs() {
  return {"/var/lib/kubelet/plugins/rbd.csi.ceph.com",
          "/var/lib/kubelet/plugins/cephfs.csi.ceph.com"};
}

}  // namespace netns::cli
