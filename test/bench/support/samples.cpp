#include "netns/bench/samples.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace netns::bench {

bool quick_mode() {
  const char* v = std::getenv("NETNS_BENCH_QUICK");
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

double percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(samples.size())));
  return samples[std::clamp<size_t>(rank, 1, samples.size()) - 1];
}

void report_percentiles(benchmark::State& state, const std::vector<double>& seconds) {
  state.counters["p50_us"] = percentile(seconds, 50) * 1e6;
  state.counters["p99_us"] = percentile(seconds, 99) * 1e6;
  state.counters["max_us"] = percentile(seconds, 100) * 1e6;
  state.counters["samples"] = static_cast<double>(seconds.size());
}

}  // namespace netns::bench
