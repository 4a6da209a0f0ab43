// Figure 5: waiting for a holder. An executor waits (inotify, as
// `--wait-holder` does) for <ID>.net.ns in an empty directory; the holder's
// publication sequence then runs: the identity record first, then the link.
// The latency is from just before the link is published to the executor's
// wait returning (woken, namespace opened and validated against the record),
// i.e. the moment the executor would proceed to spawn.
//   holder_wake/library   manual time = mean latency; counters p50_us, p99_us
//   holder_wake/inotify_close   context: closing an inotify descriptor that
//                               holds a watch (the kernel waits for an SRCU
//                               grace period when the group is torn down)
// The record describes the benchmark's own throw-away namespace child, so the
// executor's validation (pid, start time, namespace inode) passes for real.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include <cerrno>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "netns/bench/library.hpp"
#include "netns/bench/samples.hpp"
#include "netns/bench/target_ns.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"

namespace netns::bench {
namespace {

void library(benchmark::State& state) {
  const auto& ns = target_ns();
  test::TempDir dir;
  UniqueFd dirfd = open_fd(dir.path(), O_RDONLY | O_DIRECTORY);
  std::vector<double> samples;
  int n = 0;
  for (auto _ : state) {
    const std::string id = "bench-wake-" + std::to_string(n++);
    Clock::time_point woke{};
    std::exception_ptr failure;
    std::thread waiter([&] {
      try {
        wait_for_holder(dir.path(), id, std::chrono::seconds(10));
        woke = Clock::now();
      } catch (...) {
        failure = std::current_exception();
      }
    });
    // Give the waiter time to find the file missing and block in inotify:
    // the figure is the wake-up, not a publication that raced the first look.
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    publish_record(dirfd.get(), dir.path(), id, ns);
    const auto published = Clock::now();
    publish_link(dirfd.get(), dir.path(), id, ns);
    waiter.join();
    if (failure) std::rethrow_exception(failure);
    const double latency = seconds_between(published, woke);
    samples.push_back(latency);
    state.SetIterationTime(latency);
    ::unlinkat(dirfd.get(), (id + ".net.ns").c_str(), 0);
    ::unlinkat(dirfd.get(), (id + ".holder.json").c_str(), 0);
  }
  report_percentiles(state, samples);
}

// What a waiter pays after waking when it closes its inotify descriptor.
void inotify_close(benchmark::State& state) {
  test::TempDir dir;
  std::vector<double> samples;
  for (auto _ : state) {
    UniqueFd fd = make_inotify();
    if (::inotify_add_watch(fd.get(), dir.path().c_str(), IN_CREATE | IN_MOVED_TO) < 0)
      throw Error::sys("inotify_add_watch", dir.path(), errno);
    const auto start = Clock::now();
    fd.reset();
    const double took = seconds_between(start, Clock::now());
    samples.push_back(took);
    state.SetIterationTime(took);
  }
  report_percentiles(state, samples);
}

const bool registered = [] {
  if (holder_wait_available()) {
    benchmark::RegisterBenchmark("holder_wake/library", library)
        ->UseManualTime()
        ->Iterations(quick_mode() ? 5 : 300)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("holder_wake/inotify_close", inotify_close)
      ->UseManualTime()
      ->Iterations(quick_mode() ? 5 : 100)
      ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace netns::bench
