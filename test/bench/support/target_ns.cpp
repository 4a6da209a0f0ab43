#include "netns/bench/target_ns.hpp"

#include <fcntl.h>

#include <ctime>

#include "netns/atomic_file.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"
#include "netns/proc.hpp"
#include "netns/test/support.hpp"

namespace netns::bench {

namespace {

constexpr const char* kClusterId = "bench";

struct Holder {
  test::NetnsChild child;
  test::TempDir dir;
  UniqueFd dirfd;
  UniqueFd fd;
  TargetNs ns;

  Holder()
      : dirfd(open_fd(dir.path(), O_RDONLY | O_DIRECTORY)), fd(open_fd(child.ns_path(), O_RDONLY)) {
    ns = TargetNs{dir / (std::string(kClusterId) + ".net.ns"), child.ns_path(), dir.path(),
                  fd.get(), child.pid()};
    publish_record(dirfd.get(), dir.path(), kClusterId, ns);
    publish_link(dirfd.get(), dir.path(), kClusterId, ns);
  }
};

}  // namespace

const TargetNs& target_ns() {
  // Destroyed at exit in reverse order: the fds, the directory, then the
  // child is killed and reaped.
  static Holder holder;
  return holder.ns;
}

void publish_record(int dirfd, const std::string& dir, const std::string& cluster_id,
                    const TargetNs& ns) {
  HolderRecord r;
  r.cluster_id = cluster_id;
  r.pid = ns.pid;
  r.pid_start_time = pid_start_time(ns.pid).value_or(0);
  r.netns = ns_id_of_fd(ns.fd, ns.proc_path);
  r.pidns_ino = current_pidns_id().ino;
  r.boot_id = read_boot_id();
  r.created_unix = static_cast<uint64_t>(std::time(nullptr));
  write_file_atomic(dirfd, cluster_id + ".holder.json", serialize_record(r), 0644, dir);
}

void publish_link(int dirfd, const std::string& dir, const std::string& cluster_id,
                  const TargetNs& ns) {
  symlink_atomic(dirfd, cluster_id + ".net.ns", ns.proc_path, dir);
}

}  // namespace netns::bench
