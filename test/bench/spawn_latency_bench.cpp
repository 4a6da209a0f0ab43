// Figure 1: spawning `true` in a holder's network namespace (target_ns.hpp:
// published with a record, as the holder does), one at a time.
//   spawn_true/library  the executor's public API given the same path nsenter
//                       gets (opens and validates it each time, setns in the
//                       child); see library.hpp
//   spawn_true/nsenter  `nsenter --net=PATH true` spawned by the same caller
//   spawn_true/plain    posix_spawn of `true` with no namespace change: the floor
//   spawn_true/engine   the spawn engine alone with the open fd (no per-spawn
//                       open and validation of the path)
//   spawn_true/fork     fork-based spawn (context for figure 2)
// Real time: the work happens in the children, not on this thread's CPU.
#include <benchmark/benchmark.h>

#include "netns/bench/anchors.hpp"
#include "netns/bench/library.hpp"
#include "netns/bench/target_ns.hpp"

namespace netns::bench {
namespace {

void plain(benchmark::State& state) {
  for (auto _ : state) spawn_plain_true();
}

void nsenter(benchmark::State& state) {
  const auto& ns = target_ns();
  for (auto _ : state) spawn_nsenter_true(ns.path);
}

void fork_setns(benchmark::State& state) {
  const auto& ns = target_ns();
  for (auto _ : state) spawn_fork_based(ns);
}

void engine(benchmark::State& state) {
  const auto& ns = target_ns();
  for (auto _ : state) spawn_engine_true(ns);
}

void library(benchmark::State& state) {
  const auto& ns = target_ns();
  LibrarySpawner spawner(ns);
  for (auto _ : state) spawner.spawn_true();
}

const bool registered = [] {
  for (auto [name, fn] : {std::pair{"spawn_true/plain", &plain}, {"spawn_true/nsenter", &nsenter},
                          {"spawn_true/fork", &fork_setns}, {"spawn_true/library", &library},
                          {"spawn_true/engine", &engine}}) {
    if (fn == &library && !LibrarySpawner::available()) continue;
    if (fn == &engine && !engine_separately_available()) continue;
    benchmark::RegisterBenchmark(name, fn)->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  benchmark::AddCustomContext("library_entry_point", library_entry_point());
  return true;
}();

}  // namespace
}  // namespace netns::bench
