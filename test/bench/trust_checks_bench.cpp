// The cost of each check of the trust policy (netns/trust.hpp), one at a
// time, on the benchmarks' published target namespace (bench.net.ns and its
// record in a private directory), and the whole resolve() for comparison.
// REPORT.md lists these next to figure 1: what each check adds to a spawn.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "netns/bench/target_ns.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/nsfd.hpp"
#include "netns/trust.hpp"
#include "netns_exec/executor.hpp"

namespace {

namespace trust = netns::trust;
using netns::bench::target_ns;

struct Fixture {
  netns::UniqueFd dir = netns::open_fd(target_ns().dir, O_PATH | O_DIRECTORY);
  netns::UniqueFd ns = netns::open_fd(target_ns().path, O_RDONLY);
  std::string record_name = "bench.holder.json";
  netns::HolderRecord record = *netns::read_record_at(dir.get(), record_name, "record");
  netns::NsId id = netns::ns_id_of_fd(ns.get(), "ns");
  netns::NsId own = netns::current_netns_id();
  netns::HolderRef holder{record.pid, record.pid_start_time, netns::make_pidfd(record.pid)};
};
Fixture& fx() {
  static Fixture f;
  return f;
}

void open_link(benchmark::State& s) {
  for (auto _ : s) {
    netns::UniqueFd d = netns::open_fd(target_ns().dir, O_PATH | O_DIRECTORY);
    auto p = netns::open_at(d.get(), "bench.net.ns", O_PATH);
    netns::UniqueFd fd =
        netns::open_fd("/proc/self/fd/" + std::to_string(p.get()), O_RDONLY | O_NONBLOCK);
    benchmark::DoNotOptimize(fd.get());
  }
}
// What the kernel says about the descriptor, asked once per descriptor.
void read_namespace(benchmark::State& s) {
  for (auto _ : s) benchmark::DoNotOptimize(trust::read_namespace(fx().ns.get(), "x").id);
}
// The checks on those facts.
void namespace_checks(benchmark::State& s) {
  const trust::NamespaceFacts facts = trust::read_namespace(fx().ns.get(), "x");
  for (auto _ : s) {
    benchmark::DoNotOptimize(trust::network_namespace(facts).ok);
    benchmark::DoNotOptimize(trust::initial_user_namespace(facts, "x", false).ok);
  }
}
void not_own_namespace(benchmark::State& s) {
  for (auto _ : s)
    benchmark::DoNotOptimize(
        trust::not_own_namespace(fx().id, netns::current_netns_id(), "x", false).ok);
}
void not_host_namespace(benchmark::State& s) {
  for (auto _ : s)
    benchmark::DoNotOptimize(trust::not_host_namespace(fx().id, fx().own, "x", false).ok);
}
void read_directory_chain(benchmark::State& s) {
  for (auto _ : s)
    benchmark::DoNotOptimize(trust::read_directory_chain(fx().dir.get()).levels.size());
}
void directory_chain(benchmark::State& s) {
  const trust::DirectoryChain chain = trust::read_directory_chain(fx().dir.get());
  for (auto _ : s)
    benchmark::DoNotOptimize(trust::directory_chain(chain, fx().dir.get(), "x", {}).ok);
}
void link_owner(benchmark::State& s) {
  for (auto _ : s) {
    struct stat st {};
    ::fstatat(fx().dir.get(), "bench.net.ns", &st, AT_SYMLINK_NOFOLLOW);
    benchmark::DoNotOptimize(trust::file_owner(trust::kLinkOwner, st, "link", "x", {}).ok);
  }
}
void read_record(benchmark::State& s) {
  for (auto _ : s) {
    struct stat st {};
    benchmark::DoNotOptimize(netns::read_record_at(fx().dir.get(), fx().record_name, "r", &st));
  }
}
void record_origin(benchmark::State& s) {
  for (auto _ : s) {
    benchmark::DoNotOptimize(trust::record_for_cluster(fx().record, "bench", "r").ok);
    benchmark::DoNotOptimize(trust::record_this_boot(fx().record, "r").ok);
    benchmark::DoNotOptimize(trust::record_this_pid_namespace(fx().record, "r").ok);
  }
}
// What the holder is now, on a first call (no lock given: the next line but one).
void read_holder(benchmark::State& s) {
  for (auto _ : s) {
    netns::HolderRef holder;  // none yet: a pidfd is opened, as on a first call
    benchmark::DoNotOptimize(trust::read_holder(fx().record, true, nullptr, holder).start_time);
  }
}
// The same on a repeated call: the pidfd kept is polled and asked.
void read_holder_kept(benchmark::State& s) {
  netns::HolderRef holder{fx().record.pid, fx().record.pid_start_time,
                          netns::make_pidfd(fx().record.pid)};
  for (auto _ : s)
    benchmark::DoNotOptimize(trust::read_holder(fx().record, true, nullptr, holder).start_time);
}
// The lock table: /proc/locks read and searched (for the record's inode:
// the bench's holder takes no lock, and what costs is the table).
void read_locks(benchmark::State& s) {
  struct stat lock {};
  ::fstatat(fx().dir.get(), fx().record_name.c_str(), &lock, AT_SYMLINK_NOFOLLOW);
  for (auto _ : s)
    benchmark::DoNotOptimize(trust::read_holder(fx().record, false, &lock, fx().holder).lock_pids);
}
// The holder's checks on those facts.
void holder_checks(benchmark::State& s) {
  netns::HolderRef holder;
  const trust::HolderFacts h = trust::read_holder(fx().record, true, nullptr, holder);
  for (auto _ : s) {
    benchmark::DoNotOptimize(trust::holder_alive(fx().record, h, "r").ok);
    benchmark::DoNotOptimize(trust::identity_matches(fx().record, fx().id, h, "r").ok);
    benchmark::DoNotOptimize(trust::holder_is_recorded_process(fx().record, h, "r").ok);
  }
}
void holder_still_alive(benchmark::State& s) {
  for (auto _ : s) benchmark::DoNotOptimize(trust::holder_still_alive(fx().record, fx().holder).ok);
}
// A repeated call: what a plugin pays from its second rbd map on (the link's
// namespace, the record and the pidfd come from the cache; every other check
// runs).
void resolve_all(benchmark::State& s) {
  for (auto _ : s) {
    auto ns = netns::exec::resolve(netns::exec::Source::netns_path(target_ns().path));
    benchmark::DoNotOptimize(ns.fd.get());
  }
}
// What resolve_first_call adds to a first call, to subtract.
void touch_record(benchmark::State& s) {
  for (auto _ : s) ::utimensat(fx().dir.get(), fx().record_name.c_str(), nullptr, 0);
}
// A first call: the record's times are touched before each resolve (a new
// record identity, so nothing is cached), which adds one utimensat.
void resolve_first_call(benchmark::State& s) {
  for (auto _ : s) {
    ::utimensat(fx().dir.get(), fx().record_name.c_str(), nullptr, 0);
    auto ns = netns::exec::resolve(netns::exec::Source::netns_path(target_ns().path));
    benchmark::DoNotOptimize(ns.fd.get());
  }
}

BENCHMARK(open_link);
BENCHMARK(read_namespace);
BENCHMARK(namespace_checks);
BENCHMARK(not_own_namespace);
BENCHMARK(not_host_namespace);
BENCHMARK(read_directory_chain);
BENCHMARK(directory_chain);
BENCHMARK(link_owner);
BENCHMARK(read_record);
BENCHMARK(record_origin);
BENCHMARK(read_holder);
BENCHMARK(read_holder_kept);
BENCHMARK(read_locks);
BENCHMARK(holder_checks);
BENCHMARK(holder_still_alive);
BENCHMARK(resolve_all);
BENCHMARK(touch_record);
BENCHMARK(resolve_first_call);

}  // namespace
