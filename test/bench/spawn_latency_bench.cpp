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
//   (paired only) run_in  exec::run_in with the namespace resolved once
//   spawn_true/paired   every variant once per round, in rotating order, each
//                       spawn timed on its own: the variants share every moment
//                       of the machine's load, so the ratios (medians of the
//                       per-round ratios) hold on a noisy machine
// Real time: the work happens in the children, not on this thread's CPU.
#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "netns/bench/anchors.hpp"
#include "netns/bench/library.hpp"
#include "netns/bench/samples.hpp"
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

void paired(benchmark::State& state) {
  const auto& ns = target_ns();
  LibrarySpawner spawner(ns);
  std::vector<std::pair<std::string, std::function<void()>>> variants = {
      {"plain", [] { spawn_plain_true(); }},
      {"nsenter", [&] { spawn_nsenter_true(ns.path); }},
      {"fork", [&] { spawn_fork_based(ns); }},
      {"library", [&] { spawner.spawn_true(); }},
  };
  if (engine_separately_available()) {
    variants.emplace_back("engine", [&] { spawn_engine_true(ns); });
    variants.emplace_back("run_in", [&] { spawn_run_in_true(ns); });
  }
  std::map<std::string, std::vector<double>> samples;
  std::vector<double> vs_plain, vs_nsenter;
  size_t round = 0;
  for (auto _ : state) {
    std::map<std::string, double> this_round;
    for (size_t i = 0; i < variants.size(); ++i) {
      auto& [name, spawn] = variants[(i + round) % variants.size()];
      const auto start = Clock::now();
      spawn();
      this_round[name] = seconds_between(start, Clock::now());
      samples[name].push_back(this_round[name]);
    }
    vs_plain.push_back(this_round["library"] / this_round["plain"]);
    vs_nsenter.push_back(this_round["library"] / this_round["nsenter"]);
    ++round;
  }
  for (const auto& [name, s] : samples) state.counters[name + "_p50_us"] = percentile(s, 50) * 1e6;
  state.counters["library_vs_plain"] = percentile(vs_plain, 50);
  state.counters["library_vs_nsenter"] = percentile(vs_nsenter, 50);
  state.counters["rounds"] = static_cast<double>(round);
}

const bool registered = [] {
  for (auto [name, fn] : {std::pair{"spawn_true/plain", &plain},
                          {"spawn_true/nsenter", &nsenter},
                          {"spawn_true/fork", &fork_setns},
                          {"spawn_true/library", &library},
                          {"spawn_true/engine", &engine}}) {
    if (fn == &library && !LibrarySpawner::available()) continue;
    if (fn == &engine && !engine_separately_available()) continue;
    benchmark::RegisterBenchmark(name, fn)->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  if (LibrarySpawner::available()) {
    benchmark::RegisterBenchmark("spawn_true/paired", paired)
        ->UseRealTime()
        ->Iterations(quick_mode() ? 2 : 1000)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::AddCustomContext("library_entry_point", library_entry_point());
  return true;
}();

}  // namespace
}  // namespace netns::bench
