// Figure 7 in paired rounds: `netns-exec --net=P -- true` against
// `nsenter --net=P true` as whole processes, alternating in every iteration
// (which one goes first alternates too), so that the machine's load hits
// both alike. P is the published holder link of the benchmark's namespace
// (target_ns): the CLI validates a holder record as in production.
//   cli/paired   real time: one pair; counters: p50 of each (µs), the median
//                of the per-pair ratios netns-exec / nsenter, and the same
//                ratio in CPU time (user + sys of the child, from wait4)
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "netns/bench/anchors.hpp"
#include "netns/bench/target_ns.hpp"

extern char** environ;

namespace netns::bench {
namespace {

struct Timing {
  double wall_us = 0;
  double cpu_us = 0;
};

Timing timed_spawn(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  if (::posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0)
    throw std::runtime_error("posix_spawn " + argv[0]);
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("wait4 " + argv[0]);
  auto end = std::chrono::steady_clock::now();
  require_success(status, argv[0]);
  auto us = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec);
  };
  return {std::chrono::duration<double, std::micro>(end - start).count(),
          us(usage.ru_utime) + us(usage.ru_stime)};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

void paired(benchmark::State& state) {
  const std::string path = target_ns().path;
  const std::vector<std::string> ours{NETNS_EXEC_BIN, "--net=" + path, "--", true_path()};
  const std::vector<std::string> theirs{nsenter_path(), "--net=" + path, true_path()};
  std::vector<double> a, b, ratio, cpu_a, cpu_b;
  bool ours_first = false;
  for (auto _ : state) {
    Timing x, y;
    if (ours_first) {
      x = timed_spawn(ours);
      y = timed_spawn(theirs);
    } else {
      y = timed_spawn(theirs);
      x = timed_spawn(ours);
    }
    ours_first = !ours_first;
    a.push_back(x.wall_us);
    b.push_back(y.wall_us);
    ratio.push_back(x.wall_us / y.wall_us);
    cpu_a.push_back(x.cpu_us);
    cpu_b.push_back(y.cpu_us);
  }
  state.counters["p50_netns_exec_us"] = median(a);
  state.counters["p50_nsenter_us"] = median(b);
  state.counters["ratio_p50"] = median(ratio);
  double sum_a = 0, sum_b = 0;
  for (double v : cpu_a) sum_a += v;
  for (double v : cpu_b) sum_b += v;
  state.counters["cpu_ratio"] = sum_b > 0 ? sum_a / sum_b : 0;
}

#ifdef NETNS_EXEC_BIN
const bool registered = [] {
  benchmark::RegisterBenchmark("cli/paired", paired)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(5.0);
  return true;
}();
#endif

}  // namespace
}  // namespace netns::bench
