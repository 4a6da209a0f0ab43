#include "netns/bench/library.hpp"

#include <stdexcept>

#include "netns/bench/anchors.hpp"

#if defined(HAVE_NETNS_SPAWN)
#include "netns_exec/spawn/spawn.hpp"
#include "netns_exec/spawn_testing.hpp"
#endif
#if defined(HAVE_NETNS_EXEC)
#include "netns_exec/executor.hpp"
#include "netns_exec/source.hpp"
#endif

namespace netns::bench {

#if defined(HAVE_NETNS_SPAWN)
namespace {

// Pass-through stdio, like the posix_spawn anchors and nsenter itself: no
// variant pays for pipes the others do not have.
spawn::Command true_command(int netns_fd) {
  spawn::Command c;
  c.argv = {true_path()};
  c.netns_fd = netns_fd;
  c.stdin_mode = spawn::InputMode::inherit;
  c.stdout_mode = spawn::OutputMode::inherit;
  c.stderr_mode = spawn::OutputMode::inherit;
  return c;
}

void require(const spawn::Outcome& outcome, const std::string& what) {
  if (!outcome.success()) throw std::runtime_error(what + ": " + outcome.describe());
}

}  // namespace
#endif

// With libnetns_exec: the public entry point a caller uses, given the same
// path nsenter gets, so every spawn opens and validates the namespace file
// (nsfs, network type, not our own, holder record if present) as nsenter
// opens it. With only the spawn engine: the engine with the open fd.
struct LibrarySpawner::Impl {
  const TargetNs& ns;
#if defined(HAVE_NETNS_SPAWN)
  spawn::Command command = true_command(ns.fd);
#endif
};

bool LibrarySpawner::available() {
#if defined(HAVE_NETNS_SPAWN)
  return true;
#else
  return false;
#endif
}

LibrarySpawner::LibrarySpawner(const TargetNs& ns) : impl_(new Impl{ns}) {}
LibrarySpawner::~LibrarySpawner() = default;

void LibrarySpawner::spawn_true() {
#if defined(HAVE_NETNS_EXEC) && defined(HAVE_NETNS_SPAWN)
  auto r = exec::run(exec::Source::netns_path(impl_->ns.path), impl_->command);
  require(r.result.outcome, "netns::exec::run of true");
#elif defined(HAVE_NETNS_SPAWN)
  require(spawn::run(impl_->command).outcome, "netns::spawn::run of true");
#else
  throw std::logic_error("spawn library not built");
#endif
}

const char* library_entry_point() {
#if defined(HAVE_NETNS_EXEC) && defined(HAVE_NETNS_SPAWN)
  return "netns::exec::run(Source::netns_path(PATH), cmd)";
#elif defined(HAVE_NETNS_SPAWN)
  return "netns::spawn::run(cmd with netns_fd)";
#else
  return "none";
#endif
}

void spawn_fork_based(const TargetNs& ns) {
#if defined(HAVE_NETNS_SPAWN)
  require(spawn::run(true_command(ns.fd), spawn::CloneMethod::fork).outcome,
          "netns::spawn::run(CloneMethod::fork) of true");
#else
  spawn_fork_setns_true(ns.fd);
#endif
}

bool engine_separately_available() {
#if defined(HAVE_NETNS_EXEC) && defined(HAVE_NETNS_SPAWN)
  return true;
#else
  return false;
#endif
}

void spawn_engine_true(const TargetNs& ns) {
#if defined(HAVE_NETNS_SPAWN)
  require(spawn::run(true_command(ns.fd)).outcome, "netns::spawn::run of true");
#else
  (void)ns;
  throw std::logic_error("spawn library not built");
#endif
}

void spawn_run_in_true(const TargetNs& ns) {
#if defined(HAVE_NETNS_EXEC) && defined(HAVE_NETNS_SPAWN)
  // Resolved once for the process (thread-safe static); run_in only reads it.
  static const exec::ResolvedNamespace resolved = exec::resolve(exec::Source::netns_path(ns.path));
  require(exec::run_in(resolved, true_command(-1)).result.outcome, "netns::exec::run_in of true");
#else
  (void)ns;
  throw std::logic_error("executor library not built");
#endif
}

bool holder_wait_available() {
#if defined(HAVE_NETNS_EXEC)
  return true;
#else
  return false;
#endif
}

void wait_for_holder(const std::string& dir, const std::string& cluster_id,
                     std::chrono::milliseconds timeout) {
#if defined(HAVE_NETNS_EXEC)
  exec::ResolveOptions options;
  options.wait_holder = timeout;
  options.identity = exec::IdentityPolicy::require;
  auto ns = exec::resolve(exec::Source::netns_path(dir + "/" + cluster_id + ".net.ns"), options);
  if (!ns.fd) throw std::runtime_error("resolve returned no namespace for " + cluster_id);
#else
  (void)dir;
  (void)cluster_id;
  (void)timeout;
  throw std::logic_error("executor library not built");
#endif
}

}  // namespace netns::bench
