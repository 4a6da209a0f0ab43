#include "holder_addresses.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>

#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/net_snapshot.hpp"
#include "netns/trust.hpp"
#include "netns_exec/netns_thread.hpp"

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
    struct stat st {};
    auto record = read_record_at(dirfd, name, h.record_path, &st);
    if (!record) {
      h.problem = "the record disappeared while reading";
      return h;
    }
    if (auto f =
            trust::file_owner(trust::kRecordOwner, st, "record", h.record_path, trust::Owners{});
        !f.ok) {
      h.problem = f.error().describe();
      return h;
    }
    h.pid = record->pid;
    if (trust::record_this_boot(*record, h.record_path).ok &&
        trust::record_this_pid_namespace(*record, h.record_path).ok) {
      HolderRef holder;
      h.alive = trust::holder_alive(*record, h.record_path, &holder).ok;
    }
    h.addresses = record->client_addresses;
    if (!h.addresses)
      h.problem = "record version " + std::to_string(record->version) +
                  " does not publish client addresses; upgrade this holder, or "
                  "add its pod's "
                  "storage-network addresses to the fence by hand";
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
    NsId id;
    if (auto f = trust::network_namespace(ns.get(), netns_path, &id); !f.ok)
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
