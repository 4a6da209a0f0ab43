// Figure 2: spawn latency as the caller's resident memory grows from 16 MiB to
// 2 GiB of touched pages. A clone(CLONE_VM)/vfork-style spawn (the library,
// and posix_spawn running nsenter) does not copy the caller's page tables; a
// fork-based spawn does, so its cost grows with the caller.
//   caller_rss/<variant>/<MiB>   variant: library, nsenter, plain (posix_spawn
//                                without setns: flat, so it shows the load
//                                drift between sizes), fork
// Benchmarks of one size are registered together so the ballast is mapped
// and touched once per size.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "netns/bench/anchors.hpp"
#include "netns/bench/ballast.hpp"
#include "netns/bench/library.hpp"
#include "netns/bench/samples.hpp"
#include "netns/bench/target_ns.hpp"

namespace netns::bench {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

void with_ballast(benchmark::State& state) {
  shared_ballast().resize(static_cast<size_t>(state.range(0)) * kMiB);
  state.counters["caller_rss_MiB"] = static_cast<double>(current_rss_bytes()) / kMiB;
}

void library(benchmark::State& state) {
  with_ballast(state);
  LibrarySpawner spawner(target_ns());
  for (auto _ : state) spawner.spawn_true();
}

void nsenter(benchmark::State& state) {
  with_ballast(state);
  const auto& ns = target_ns();
  for (auto _ : state) spawn_nsenter_true(ns.path);
}

void plain(benchmark::State& state) {
  with_ballast(state);
  for (auto _ : state) spawn_plain_true();
}

void fork_setns(benchmark::State& state) {
  with_ballast(state);
  const auto& ns = target_ns();
  for (auto _ : state) spawn_fork_based(ns);
}

const bool registered = [] {
  std::vector<int64_t> sizes = {16, 64, 256, 1024, 2048};
  if (quick_mode()) sizes = {16, 64};
  for (int64_t mib : sizes) {
    for (auto [name, fn] : {std::pair{"library", &library},
                            {"nsenter", &nsenter},
                            {"plain", &plain},
                            {"fork", &fork_setns}}) {
      if (fn == &library && !LibrarySpawner::available()) continue;
      benchmark::RegisterBenchmark(("caller_rss/" + std::string(name)).c_str(), fn)
          ->Arg(mib)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

}  // namespace
}  // namespace netns::bench
