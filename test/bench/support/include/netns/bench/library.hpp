#pragma once
// The one place the benchmarks touch the executor's API, so the figures do not
// depend on its spelling. When the executor's libraries are not built, the
// library variants report available() == false and are not registered.
#include <chrono>
#include <memory>
#include <string>

#include "netns/bench/target_ns.hpp"

namespace netns::bench {

// Spawns /usr/bin/true in a namespace through the spawn engine and waits.
class LibrarySpawner {
 public:
  static bool available();
  explicit LibrarySpawner(const TargetNs& ns);
  ~LibrarySpawner();
  LibrarySpawner(const LibrarySpawner&) = delete;
  LibrarySpawner& operator=(const LibrarySpawner&) = delete;
  // Throws when the child does not exit 0.
  void spawn_true();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The spawn engine alone with the already open fd (no per-spawn open and
// validation), when libnetns_exec is built too so that the two differ.
bool engine_separately_available();
void spawn_engine_true(const TargetNs& ns);

// exec::run_in with the namespace resolved once (the caller that spawns many
// commands into one holder), when libnetns_exec is built.
void spawn_run_in_true(const TargetNs& ns);

// What LibrarySpawner calls, for the report.
const char* library_entry_point();

// The fork-based spawn at the same place: the spawn engine's CloneMethod::fork
// when it is built (the only difference from the library is then the clone),
// else the fork + setns + execve anchor.
void spawn_fork_based(const TargetNs& ns);

// wait_for_holder: waits through the executor's API until the holder's
// `dir`/<cluster_id>.net.ns exists and is validated, as `--wait-holder` does;
// returns when the executor would proceed. Throws on timeout or validation
// failure. holder_wait_available: whether the executor library was built in.
bool holder_wait_available();
void wait_for_holder(const std::string& dir, const std::string& cluster_id,
                     std::chrono::milliseconds timeout);

}  // namespace netns::bench
