// The spawn engine's own comparison: spawning `true`, every variant through
// netns::spawn::run so that only the way of spawning differs, at a small and
// a large caller (touched pages):
//   spawn_engine/setns/<MiB>    clone(CLONE_VM|CLONE_VFORK) + setns in the child
//   spawn_engine/nsenter/<MiB>  the same engine running `nsenter --net=PATH true`
//   spawn_engine/plain/<MiB>    the same engine without a namespace: the floor
//   spawn_engine/fork/<MiB>     CloneMethod::fork + setns: copies the page tables
//   spawn_engine/interleaved/<MiB>  plain, setns and nsenter in turn in every
//                               iteration; counters: the median of each
//                               (p50_*_us) and their ratios. On a busy
//                               machine only interleaving compares fairly.
// Counters: caller_rss_MiB.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "netns/bench/anchors.hpp"
#include "netns/bench/ballast.hpp"
#include "netns/bench/samples.hpp"
#include "netns/bench/target_ns.hpp"
#include "netns_exec/spawn/spawn.hpp"
#include "netns_exec/spawn_testing.hpp"

namespace netns::bench {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

spawn::Command command(std::vector<std::string> argv, int netns_fd) {
  spawn::Command c;
  c.argv = std::move(argv);
  c.netns_fd = netns_fd;
  // No pipes: the anchors do not capture either.
  c.stdout_mode = spawn::OutputMode::discard;
  c.stderr_mode = spawn::OutputMode::discard;
  return c;
}

void run_loop(benchmark::State& state, const spawn::Command& c, spawn::CloneMethod method) {
  shared_ballast().resize(static_cast<size_t>(state.range(0)) * kMiB);
  state.counters["caller_rss_MiB"] = static_cast<double>(current_rss_bytes()) / kMiB;
  for (auto _ : state) {
    spawn::Result r = spawn::run(c, method);
    if (!r.outcome.success())
      throw std::runtime_error(c.argv.front() + ": " + r.outcome.describe());
  }
}

void setns(benchmark::State& state) {
  run_loop(state, command({true_path()}, target_ns().fd), spawn::CloneMethod::automatic);
}

void nsenter(benchmark::State& state) {
  run_loop(state, command({nsenter_path(), "--net=" + target_ns().path, true_path()}, -1),
           spawn::CloneMethod::automatic);
}

void plain(benchmark::State& state) {
  run_loop(state, command({true_path()}, -1), spawn::CloneMethod::automatic);
}

void fork_setns(benchmark::State& state) {
  run_loop(state, command({true_path()}, target_ns().fd), spawn::CloneMethod::fork);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void interleaved(benchmark::State& state) {
  shared_ballast().resize(static_cast<size_t>(state.range(0)) * kMiB);
  state.counters["caller_rss_MiB"] = static_cast<double>(current_rss_bytes()) / kMiB;
  const spawn::Command variants[] = {
      command({true_path()}, -1),
      command({true_path()}, target_ns().fd),
      command({nsenter_path(), "--net=" + target_ns().path, true_path()}, -1),
  };
  std::vector<double> samples[3];
  for (auto _ : state) {
    for (int i = 0; i < 3; ++i) {
      auto start = Clock::now();
      spawn::Result r = spawn::run(variants[i]);
      samples[i].push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
      if (!r.outcome.success())
        throw std::runtime_error(variants[i].argv.front() + ": " + r.outcome.describe());
    }
  }
  const double plain_us = median(samples[0]);
  const double setns_us = median(samples[1]);
  const double nsenter_us = median(samples[2]);
  state.counters["p50_plain_us"] = plain_us;
  state.counters["p50_setns_us"] = setns_us;
  state.counters["p50_nsenter_us"] = nsenter_us;
  state.counters["setns_over_plain"] = plain_us > 0 ? setns_us / plain_us : 0;
  state.counters["setns_over_nsenter"] = nsenter_us > 0 ? setns_us / nsenter_us : 0;
}

const bool registered = [] {
  std::vector<int64_t> sizes = {16, 2048};
  if (quick_mode()) sizes = {16};
  for (int64_t mib : sizes) {
    for (auto [name, fn] : {std::pair{"setns", &setns},
                            {"nsenter", &nsenter},
                            {"plain", &plain},
                            {"fork", &fork_setns}}) {
      benchmark::RegisterBenchmark(("spawn_engine/" + std::string(name)).c_str(), fn)
          ->Arg(mib)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
    benchmark::RegisterBenchmark("spawn_engine/interleaved", interleaved)
        ->Arg(mib)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
}  // namespace netns::bench
