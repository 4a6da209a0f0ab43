#include "holder_gone.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <utility>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/path.hpp"
#include "netns/trust.hpp"
#include "netns_exec/ceph_csi_config.hpp"

namespace netns::cli {

namespace {

// The holder's file the source names: the link, the socket, or what
// ceph-csi's config gives for the cluster and kind.
std::string holder_file(const SourceOptions& source) {
  if (!source.netns.empty()) return source.netns;
  if (!source.socket.empty()) return source.socket;
  const exec::CephCsiConfig config = exec::read_ceph_csi_config(source.config);
  const exec::CephCsiCluster* c = config.find(source.cluster_id);
  if (c == nullptr)
    throw Error(Errc::not_found,
                "cluster " + quote(source.cluster_id) + " is not in " + quote(source.config),
                "check --cluster-id and --config");
  const exec::ConfigKind kind = exec::parse_config_kind(source.kind);
  const std::string& path = c->netns_path(kind);
  if (path.empty())
    throw Error(Errc::not_found,
                exec::no_holder_path_warning(source.config, source.cluster_id, kind),
                "no holder was configured for it, so none can be gone: inspect without "
                "--holder-gone shows the caller's own namespace");
  return path;
}

// The cluster ID the holder's file name implies ("" for another name).
std::string id_of(const std::string& name) {
  for (std::string_view suffix : {kLinkSuffix, kSocketSuffix})
    if (std::string id = cluster_id_from_file_name(name, suffix); !id.empty()) return id;
  return {};
}

void require(const trust::Finding& f) {
  if (!f.ok) throw f.error();
}

// The record the dead holder left next to its file, through the same
// provenance checks as always: the directory and the record's owner.
std::optional<HolderRecord> left_record(const std::string& dir, const std::string& id,
                                        const trust::Owners& owners) {
  UniqueFd dirfd = open_fd(dir, O_RDONLY | O_DIRECTORY);
  require(trust::directory_chain(dirfd.get(), dir, owners));
  const HolderFileNames names = holder_file_names(id);
  const std::string shown = join_path(dir, names.record);
  struct stat st {};
  std::optional<HolderRecord> record = read_record_at(dirfd.get(), names.record, shown, &st);
  if (!record) return std::nullopt;
  require(trust::file_owner(trust::kRecordOwner, st, "holder record", shown, owners));
  require(trust::record_for_cluster(*record, id, shown));
  // After a reboot the namespace is gone, whatever has its inode number now.
  require(trust::record_this_boot(*record, shown));
  return record;
}

// A descriptor for namespace `want`, through the first process found in it
// (the pod sandbox's pause process, usually): "" in `via` when none is.
UniqueFd find_member(NsId want, std::string* via) {
  UniqueFd proc = open_fd("/proc", O_RDONLY | O_DIRECTORY);
  DIR* d = ::fdopendir(proc.get());
  if (d == nullptr) throw Error::sys("fdopendir", "/proc", errno);
  (void)proc.release();  // the DIR owns it now
  UniqueFd found;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    const std::string link = "/proc/" + std::string(e->d_name) + "/ns/net";
    // The link's text first (no open): most processes are elsewhere.
    if (netns_link_ino(link) != want.ino) continue;
    try {
      UniqueFd fd = open_fd(link, O_RDONLY);
      if (ns_id_of_fd(fd.get(), link) != want) continue;  // it moved, or another device
      *via = link;
      found = std::move(fd);
      break;
    } catch (const Error&) {
      continue;  // the process exited in between
    }
  }
  ::closedir(d);
  return found;
}

}  // namespace

GoneHolderNamespace find_gone_holder_namespace(const SourceOptions& source) {
  GoneHolderNamespace out;
  out.path = holder_file(source);
  const auto [dir, name] = split_path(out.path);
  const std::string id = id_of(name);
  out.cluster_id = source.cluster_id.empty() ? id : source.cluster_id;
  const trust::Owners owners{source.trust_uids, "--trust-uid"};
  if (!id.empty()) out.record = left_record(dir, id, owners);

  if (out.record) {
    out.fd = find_member(out.record->netns, &out.via);
    if (!out.fd)
      throw Error(Errc::stale_holder,
                  "no process is in " + ns_text(out.record->netns) +
                      ", the namespace of holder pid " + std::to_string(out.record->pid) +
                      " (record " + quote(join_path(dir, holder_file_names(id).record)) +
                      "): its pod sandbox is gone too, and with it the namespace's interfaces",
                  "mappings made through it hang: look for them with `netns-exec doctor` "
                  "(mappings in no live holder's namespace) and drain the node");
  } else {
    // No record to say which namespace: only a path that still opens as one
    // (/run/netns/NAME, /proc/PID/ns/net) can be looked into.
    try {
      out.fd = open_fd(out.path, O_RDONLY | O_NONBLOCK);
    } catch (Error& e) {
      throw e.default_hint(
          "no holder record next to it says which namespace the holder had: name the pod "
          "sandbox's namespace instead (/proc/<pid of a process in the pod>/ns/net, or the "
          "runtime's /run/netns/<name>)");
    }
    out.via = out.path;
  }

  // The checks every namespace passes, on the descriptor.
  const trust::NamespaceFacts facts = trust::read_namespace(out.fd.get(), out.via);
  require(trust::network_namespace(facts));
  out.id = facts.id;
  require(trust::initial_user_namespace(facts, out.via, source.allow_userns));
  const NsId own = current_netns_id();
  require(trust::not_own_namespace(out.id, own, out.via, source.allow_own_netns));
  require(trust::not_host_namespace(out.id, own, out.via, source.allow_host_netns));
  if (out.record) {
    require(trust::record_names(*out.record, out.id, out.via));
    require(trust::namespace_cookie_matches(*out.record, facts, out.via));
  }
  return out;
}

std::string holder_gone_warning(const GoneHolderNamespace& gone) {
  std::string who = gone.record ? "holder pid " + std::to_string(gone.record->pid) +
                                      " of cluster " + quote(gone.record->cluster_id) + " is gone"
                                : "no holder record names it";
  return "NO LIVE HOLDER VOUCHES FOR THIS NAMESPACE (--holder-gone): " + who + "; showing " +
         ns_text(gone.id) + " through " + quote(gone.via) + " for " + quote(gone.path) +
         ". Nothing will be run in it: a new holder pod publishes a new namespace";
}

}  // namespace netns::cli
