// netns-holder: keep a network namespace alive for a Ceph cluster's kernel
// clients and publish it for the CSI node plugin. Fatal errors happen only
// during setup; afterwards the holder only warns (like catatonit).
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

#include "check.hpp"
#include "exit_codes.hpp"
#include "holder_dir.hpp"
#include "identity.hpp"
#include "log.hpp"
#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/join.hpp"
#include "netns/trust.hpp"
#include "network_watch.hpp"
#include "options.hpp"
#include "pause_loop.hpp"
#include "process_setup.hpp"
#include "publication.hpp"
#include "readiness.hpp"

namespace netns::holder {
namespace {

std::string pidns_text(uint64_t ino) { return ns_text(NsId{0, ino}, "pid"); }

int hold(const Options& o) {
  const sigset_t all = block_all_signals();
  sanitize_descriptors();
  ::umask(022);  // DIR is created 0755 whatever umask we were started with

  const Identity self = own_identity();
  switch (judge_pid_namespace(self)) {
    case PidNsVerdict::initial:
      break;
    case PidNsVerdict::child_pid1:
      if (!o.socket) {
        log_line("refusing to publish cluster " + quote(o.cluster_id) +
                 " as a symlink: this holder is PID 1 of a child pid namespace (" +
                 pidns_text(self.pidns_ino) +
                 "), and /proc/1/ns/net names the host's init (the host network namespace) to the "
                 "plugin; run the holder pod with hostPID: true, or add --socket");
        return kExitRefused;
      }
      log_line("PID 1 of a child pid namespace (" + pidns_text(self.pidns_ino) +
               "): publishing the socket and the record, not the " + o.cluster_id + ".net.ns link");
      break;
    case PidNsVerdict::child_warn:
      log_warning("running as pid " + std::to_string(self.pid) +
                  " in a non-initial pid namespace (" + pidns_text(self.pidns_ino) +
                  "): " + ns_link_target(self) +
                  " means this holder only to readers in the same pid namespace (hostPID pods on a "
                  "kind-like node); netns-exec compares the record's pidns_ino with its own before "
                  "trusting the link");
      break;
  }

  PublishPlan plan;
  plan.cluster_id = o.cluster_id;
  plan.names = holder_file_names(o.cluster_id);
  plan.dir_shown = o.dir;
  plan.link = judge_pid_namespace(self) != PidNsVerdict::child_pid1;
  if (o.socket) plan.socket_allow = o.allow_uids;

  UniqueFd dir = open_holder_dir(o.dir, true);
  require_trusted_dir(dir.get(), o.dir);
  UniqueFd lock = take_holder_lock(dir.get(), plan.names, o.dir);
  // The directory and the lock first (their errors are the ones an operator
  // fixes first), then: never the host's namespace: published, it would run the plugin's work on
  // the host network (and in symlink mode the holder can tell: with hostPID
  // /proc/1 is the host's init).
  if (trust::Finding host = trust::not_host_namespace(self.netns, self.netns, "/proc/self/ns/net",
                                                      o.allow_host_netns);
      !host.ok) {
    log_line("refusing to publish cluster " + quote(o.cluster_id) + ": " + host.error().describe());
    return kExitRefused;
  }

  UniqueFd signals = make_signalfd(all, SFD_NONBLOCK);
  // Subscribed before the first read of the addresses, so a change between
  // that read and the pause loop wakes the loop.
  NetworkWatch network;
  if (!o.require_interfaces.empty() || !o.require_reachable.empty()) {
    // Nothing is published before the storage network is there (and, with
    // --require-reachable, reaches a monitor), so no map can go out through a
    // namespace that lacks it (netns-exec's --wait-holder covers the gap).
    // The lock is held meanwhile: a second holder for this ID still refuses.
    if (int sig =
            wait_until_ready(signals.get(), network, o.require_interfaces, o.require_reachable)) {
      log_line(std::string(sig == SIGINT ? "received SIGINT" : "received SIGTERM") +
               " before the storage network was ready; published nothing; exiting");
      return kExitOk;
    }
  }
  Published published = publish(dir.get(), plan, self, network.state().client_addresses);
  // Pin no other mount point than the directory's own (which `dir` and the
  // lock hold anyway); a relative --dir was resolved above, before this.
  if (::chdir("/") != 0) log_warning(Error::sys("chdir", "/", errno).describe());

  std::string files = join_path(o.dir, plan.names.record);
  if (published.link_target)
    files += ", " + join_path(o.dir, plan.names.ns_link) + " -> " + *published.link_target;
  SocketService service;
  if (published.listener) {
    files += ", " + join_path(o.dir, plan.names.socket);
    service.listen_fd = published.listener->fd.get();
    service.allow_uids = o.allow_uids;
    service.header = FdHeader{FdHeader::kVersion, o.cluster_id, self.netns};
    service.shown = join_path(o.dir, plan.names.socket);
  }
  log_line("holding " + ns_text(self.netns) + " for cluster " + quote(o.cluster_id) + " as pid " +
           std::to_string(self.pid) + " (netns-holder " NETNS_VERSION "); published " + files +
           "; client addresses: " +
           (published.record.client_addresses->empty()
                ? std::string("none yet")
                : format_client_addresses(*published.record.client_addresses)));

  struct Republish {
    int dirfd;
    const PublishPlan* plan;
    Published* published;
    NetworkWatch* network;
    const std::vector<std::string>* required;
    std::string not_ready;  // what the last log line said was missing; "" when ready
  } republish{dir.get(), &plan, &published, &network, &o.require_interfaces, {}};
  NetworkService network_service{
      &network,
      [](void* context) {
        auto* r = static_cast<Republish*>(context);
        const NetSnapshot& now = r->network->state();
        if (now.client_addresses != r->published->record.client_addresses)
          republish_addresses(r->dirfd, *r->plan, *r->published, now.client_addresses);
        // Losing a required interface keeps the files (the mappings made
        // through this namespace still need it): `check` fails on its own
        // reading, and this line says why.
        std::string why = interfaces_not_ready(now, *r->required);
        if (why == r->not_ready) return;
        if (why.empty())
          log_line("required interfaces are ready again");
        else
          log_warning("storage network lost: " + why +
                      "; the readiness probe (netns-holder check) fails until it is back; the "
                      "published files stay for the mappings already made");
        r->not_ready = why;
      },
      &republish};
  int sig = 0;
  try {
    sig = pause_until_stopped(signals.get(), published.listener ? &service : nullptr,
                              network_service);
  } catch (...) {
    withdraw(dir.get(), plan, published);  // do not leave a link to a holder about to exit
    throw;
  }
  std::vector<std::string> removed = withdraw(dir.get(), plan, published);
  const std::string list = join(removed, ", ");
  // pause_until_stopped returns only these two; naming them here keeps glibc's
  // signal-name table (sigabbrev_np) out of the static holder.
  log_line(std::string(sig == SIGINT ? "received SIGINT" : "received SIGTERM") + "; removed " +
           (list.empty() ? std::string("nothing (the files describe another holder now)") : list) +
           "; exiting");
  return kExitOk;
}

}  // namespace
}  // namespace netns::holder

int main(int argc, char** argv) {
  using namespace netns::holder;
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const netns::Error& e) {
    log_line(e.describe());
    return kExitUsage;
  }
  try {
    switch (options.command) {
      case Command::help:
        print_line(usage_text());
        return kExitOk;
      case Command::version:
        print_line("netns-holder " NETNS_VERSION);
        return kExitOk;
      case Command::check:
        print_line(run_check(options));
        return kExitOk;
      case Command::hold:
        return hold(options);
    }
  } catch (const netns::Error& e) {
    if (options.command == Command::check) {
      netns::holder::log_line("check: " + e.describe());
      return kExitFailure;
    }
    log_line(e.describe());
    return e.code() == netns::Errc::busy ? kExitBusy : kExitFailure;
  } catch (const std::exception& e) {
    log_line(e.what());
  }
  return kExitFailure;
}
