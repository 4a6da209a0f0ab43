#pragma once
// Helpers shared by the benchmarks: per-sample latencies reported as
// percentile counters, and the quick mode used by the ctest smoke runs.
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

namespace netns::bench {

// True when NETNS_BENCH_QUICK is set (ctest smoke runs, run.sh --quick):
// benchmarks shrink their argument ranges and sample counts.
bool quick_mode();

// Nearest-rank percentile (p in [0, 100]) of `samples`, in the same unit.
double percentile(std::vector<double> samples, double p);

// Adds p50_us, p99_us and max_us counters computed from latency samples in
// seconds.
void report_percentiles(benchmark::State& state, const std::vector<double>& seconds);

using Clock = std::chrono::steady_clock;
inline double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace netns::bench
