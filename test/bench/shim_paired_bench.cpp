// Transparent mode in paired rounds, as cli/paired: each iteration runs both
// programs of a pair as whole processes, alternating which goes first, so
// the machine's load hits both alike.
//   shim/pass_through  `rbd --version` through the shim (no monitors named:
//                      the real rbd exec'd untouched) vs /usr/bin/rbd
//                      --version, and the floor of any stand-in in the same
//                      rounds: support/exec_floor.c, a C program that only
//                      execs /usr/bin/rbd, linked dynamically (one more execve,
//                      the loader, libc) and statically (one more execve,
//                      libc's static start-up, no loader)
//   shim/routed        `rbd -m MON --version` through the shim, MON a held
//                      cluster's monitor (config.json without
//                      netNamespaceFilePath, the holder's link found in its
//                      directory, every check) vs util-linux
//                      `nsenter --net=P -- /usr/bin/rbd -m MON --version`
// Counters: p50 of each (µs) and the median of the per-round ratios to the
// anchor: ratio_p50 (the shim), KEY_ratio_p50, and shim_vs_KEY_p50 (the
// shim over each further variant, per round).
// rbd --version parses its arguments and exits without contacting anyone:
// nothing is sent through the namespace.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "netns/bench/anchors.hpp"
#include "netns/bench/target_ns.hpp"

namespace netns::bench {
namespace {

const char* const kRealRbd = "/usr/bin/rbd";
const char* const kMon = "198.18.0.1:6789";

// The shim's world: <tmp>/bin/rbd -> netns-exec, config.json naming the
// benchmark's holder ("bench") by its monitor, and the environment the
// plugin's chart would give it.
struct ShimWorld {
  ShimWorld() {
    if (::access(kRealRbd, X_OK) != 0)
      throw std::runtime_error("the real rbd is needed: /usr/bin/rbd");
    char tmpl[] = "/tmp/netns-shim-bench.XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp");
    dir = tmpl;
    ::chmod(dir.c_str(), 0755);
    ::mkdir((dir + "/bin").c_str(), 0755);
    shim = dir + "/bin/rbd";
    if (::symlink(NETNS_EXEC_BIN, shim.c_str()) != 0) throw std::runtime_error("symlink " + shim);
    config = dir + "/config.json";
    std::ofstream(config) << R"([{"clusterID": "bench", "monitors": [")" << kMon << R"("]}])";
    env_strings = {"PATH=" + dir + "/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   "NETNS_EXEC_CONFIG=" + config, "NETNS_EXEC_HOLDER_DIR=" + target_ns().dir};
    for (auto& s : env_strings) env.push_back(s.data());
    env.push_back(nullptr);
    // The candidate's own directory leads its PATH, as bin/ leads the
    // build's: each finds the real rbd behind itself, not the other shim.
    alt_env_strings = env_strings;
    alt_env_strings[0] = "PATH=" + dir + "/alt:/usr/sbin:/usr/bin:/sbin:/bin";
    for (auto& s : alt_env_strings) alt_env.push_back(s.data());
    alt_env.push_back(nullptr);
  }
  ~ShimWorld() {
    ::unlink((dir + "/alt/rbd").c_str());
    ::rmdir((dir + "/alt").c_str());
    ::unlink(shim.c_str());
    ::unlink(config.c_str());
    ::rmdir((dir + "/bin").c_str());
    ::rmdir(dir.c_str());
  }
  std::string dir, shim, config;
  std::vector<std::string> env_strings, alt_env_strings;
  std::vector<char*> env, alt_env;
};

const ShimWorld& world() {
  static ShimWorld w;
  return w;
}

double timed_spawn(const std::vector<std::string>& argv, const std::string& path,
                   char* const* env) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  // rbd's version line is not the benchmark's output.
  posix_spawn_file_actions_t quiet;
  ::posix_spawn_file_actions_init(&quiet);
  ::posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, path.c_str(), &quiet, nullptr, args.data(), env);
  ::posix_spawn_file_actions_destroy(&quiet);
  if (rc != 0) throw std::runtime_error("posix_spawn " + path);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) throw std::runtime_error("waitpid " + path);
  auto end = std::chrono::steady_clock::now();
  require_success(status, path);
  return std::chrono::duration<double, std::micro>(end - start).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

struct Command {
  std::vector<std::string> argv;  // argv[0] as the caller's execvp would pass it ("rbd")
  std::string path;               // what it found
  bool alt = false;               // the candidate's environment (its PATH)
};

// One round runs every command once; the order rotates from round to round,
// so each command goes first, second, ... equally often. The first command
// is the shim, the second the anchor the goal is about; each further one is
// context, reported as KEY (its p50 and its per-round ratio to the anchor).
void rounds(benchmark::State& state, const std::vector<Command>& commands,
            const std::vector<std::string>& keys) {
  const size_t n = commands.size();
  std::vector<std::vector<double>> times(n), vs_anchor(n), shim_vs(n);
  std::vector<double> t(n);
  size_t first = 0;
  for (auto _ : state) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (first + k) % n;
      const auto& env = commands[i].alt ? world().alt_env : world().env;
      t[i] = timed_spawn(commands[i].argv, commands[i].path, env.data());
    }
    first = (first + 1) % n;
    for (size_t i = 0; i < n; ++i) {
      times[i].push_back(t[i]);
      vs_anchor[i].push_back(t[i] / t[1]);
      shim_vs[i].push_back(t[0] / t[i]);
    }
  }
  state.counters["p50_shim_us"] = median(times[0]);
  state.counters["p50_other_us"] = median(times[1]);
  state.counters["ratio_p50"] = median(vs_anchor[0]);
  for (size_t i = 2; i < n; ++i) {
    state.counters["p50_" + keys[i - 2] + "_us"] = median(times[i]);
    state.counters[keys[i - 2] + "_ratio_p50"] = median(vs_anchor[i]);
    state.counters["shim_vs_" + keys[i - 2] + "_p50"] = median(shim_vs[i]);
  }
}

// NETNS_BENCH_SHIM_ALT=PATH adds a candidate netns-exec (another link of it,
// say) as one more variant of the same rounds, installed as rbd next to the
// build's: key "alt". A comparison tool only; the report's rows are the
// build's.
std::string alt_shim() {
  const char* alt = std::getenv("NETNS_BENCH_SHIM_ALT");
  if (alt == nullptr || *alt == '\0') return {};
  const std::string dir = world().dir + "/alt";
  const std::string link = dir + "/rbd";
  ::mkdir(dir.c_str(), 0755);
  ::unlink(link.c_str());
  if (::symlink(alt, link.c_str()) != 0) throw std::runtime_error("symlink " + link);
  return link;
}

void pass_through(benchmark::State& state) {
  std::vector<Command> commands{
      {{"rbd", "--version"}, world().shim},
      {{"rbd", "--version"}, kRealRbd},
      {{"exec_floor", kRealRbd, "--version"}, NETNS_BENCH_EXEC_FLOOR_BIN},
      {{"exec_floor_static", kRealRbd, "--version"}, NETNS_BENCH_EXEC_FLOOR_STATIC_BIN}};
  std::vector<std::string> keys{"floor", "floor_static"};
  if (const auto alt = alt_shim(); !alt.empty()) {
    commands.push_back({{"rbd", "--version"}, alt, true});
    keys.emplace_back("alt");
  }
  rounds(state, commands, keys);
}

void routed(benchmark::State& state) {
  const std::string link = target_ns().path;
  std::vector<Command> commands{
      {{"rbd", "-m", kMon, "--version"}, world().shim},
      {{"nsenter", "--net=" + link, "--", kRealRbd, "-m", kMon, "--version"}, nsenter_path()}};
  std::vector<std::string> keys;
  if (const auto alt = alt_shim(); !alt.empty()) {
    commands.push_back({{"rbd", "-m", kMon, "--version"}, alt, true});
    keys.emplace_back("alt");
  }
  rounds(state, commands, keys);
}

#ifdef NETNS_EXEC_BIN
const bool registered = [] {
  for (auto [name, fn] :
       {std::pair{"shim/pass_through", &pass_through}, std::pair{"shim/routed", &routed}})
    benchmark::RegisterBenchmark(name, fn)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(5.0);
  return true;
}();
#endif

}  // namespace
}  // namespace netns::bench
