// Figure 3: 1, 2, 4 and 8 threads of one caller spawning `true` at once.
// items_per_second is the total throughput of all threads; the report divides
// it by the 1-thread figure. The plain spawn (no namespace) shows what the
// machine itself allows.
//   threads/<variant>/real_time/threads:N   variant: library, engine (the spawn
//   engine alone with the open fd), plain, nsenter
#include <benchmark/benchmark.h>

#include <memory>

#include "netns/bench/anchors.hpp"
#include "netns/bench/library.hpp"
#include "netns/bench/target_ns.hpp"

namespace netns::bench {
namespace {

void library(benchmark::State& state) {
  LibrarySpawner spawner(target_ns());  // one per thread, as independent callers
  for (auto _ : state) spawner.spawn_true();
  state.SetItemsProcessed(state.iterations());
}

void engine(benchmark::State& state) {
  const auto& ns = target_ns();
  for (auto _ : state) spawn_engine_true(ns);
  state.SetItemsProcessed(state.iterations());
}

void plain(benchmark::State& state) {
  for (auto _ : state) spawn_plain_true();
  state.SetItemsProcessed(state.iterations());
}

void nsenter(benchmark::State& state) {
  const auto& ns = target_ns();
  for (auto _ : state) spawn_nsenter_true(ns.path);
  state.SetItemsProcessed(state.iterations());
}

const bool registered = [] {
  for (auto [name, fn] : {std::pair{"threads/library", &library},
                          {"threads/engine", &engine},
                          {"threads/plain", &plain},
                          {"threads/nsenter", &nsenter}}) {
    if (fn == &library && !LibrarySpawner::available()) continue;
    if (fn == &engine && !engine_separately_available()) continue;
    benchmark::RegisterBenchmark(name, fn)->ThreadRange(1, 8)->UseRealTime()->Unit(
        benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
}  // namespace netns::bench
