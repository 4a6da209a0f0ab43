// Figure 6: `inspect` on a namespace with 10,000 TCP sockets vs `ss -tan` run
// in that namespace. Both print every socket:
//   ss/10000           nsenter --net=NS ss -tan > /dev/null (a process, like an operator runs it)
//   inspect/10000      netns-exec inspect --netns NS --sockets > /dev/null (the same, our CLI)
//   library/10000      collect_report + render_table(all sockets) in-process
//   library_no_owner_scan/10000   the same without the /proc scan that tells
//                                 kernel sockets from processes' sockets
// The sockets: 5,000 connected pairs over lo (198.18.200.1) inside a
// namespace this benchmark creates; NETNS_BENCH_QUICK uses 500 pairs.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "netns/bench/samples.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"

#ifdef HAVE_NETNS_INSPECT
#include "netns_exec/inspect/inspect_report.hpp"
#include "netns_exec/inspect/netns_thread.hpp"
#endif

extern char** environ;

namespace netns::bench {
namespace {

#ifdef HAVE_NETNS_INSPECT

constexpr const char* kAddr = "198.18.200.1";

// A namespace holding `pairs` connected TCP pairs (2 * pairs sockets plus
// the listener), all owned by this process.
class SocketFarm {
 public:
  explicit SocketFarm(int pairs) {
    rlimit lim{};
    ::getrlimit(RLIMIT_NOFILE, &lim);
    rlim_t need = static_cast<rlim_t>(pairs) * 2 + 256;
    if (lim.rlim_cur < need) {
      lim.rlim_cur = std::min<rlim_t>(need, lim.rlim_max);
      ::setrlimit(RLIMIT_NOFILE, &lim);
    }
    auto r = child_.run({"ip", "addr", "add", std::string(kAddr) + "/32", "dev", "lo"});
    if (!r.ok()) throw std::runtime_error("ip addr add: " + r.describe());
    fd_ = open_fd(child_.ns_path(), O_RDONLY);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(5000);
    ::inet_pton(AF_INET, kAddr, &sa.sin_addr);
    auto* addr = reinterpret_cast<sockaddr*>(&sa);
    inspect::run_in_netns(fd_.get(), child_.ns_path(), [&] {
      listener_ = make_socket(AF_INET, SOCK_STREAM, 0);
      if (::bind(listener_.get(), addr, sizeof sa) != 0 || ::listen(listener_.get(), 4096) != 0)
        throw Error::sys("bind/listen", kAddr, errno);
      for (int i = 0; i < pairs; ++i) {
        UniqueFd c = make_socket(AF_INET, SOCK_STREAM, 0);
        if (::connect(c.get(), addr, sizeof sa) != 0) throw Error::sys("connect", kAddr, errno);
        socks_.push_back(std::move(c));
        socks_.push_back(accept_fd(listener_.get()));
      }
    });
  }
  [[nodiscard]] int fd() const { return fd_.get(); }
  [[nodiscard]] std::string path() const { return child_.ns_path(); }
  [[nodiscard]] size_t sockets() const { return socks_.size() + 1; }

 private:
  test::NetnsChild child_;
  UniqueFd fd_;
  UniqueFd listener_;
  std::vector<UniqueFd> socks_;
};

int pairs() { return quick_mode() ? 500 : 5000; }

SocketFarm& farm() {
  static SocketFarm f(pairs());
  return f;
}

// Runs argv with stdout on /dev/null and waits; throws unless it exits 0.
void run_quiet(const std::vector<std::string>& args) {
  static UniqueFd devnull = open_fd("/dev/null", O_WRONLY);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, devnull.get(), STDOUT_FILENO);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw Error::sys("posix_spawnp", args[0], rc);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(args[0] + " failed with status " + std::to_string(status));
}

void set_counters(benchmark::State& state) {
  state.counters["sockets"] = static_cast<double>(farm().sockets());
}

void ss(benchmark::State& state) {
  std::vector<std::string> argv{"nsenter", "--net=" + farm().path(), "--", "ss", "-tan"};
  for (auto _ : state) run_quiet(argv);
  set_counters(state);
}

#ifdef NETNS_EXEC_BIN
void inspect_cli(benchmark::State& state) {
  std::vector<std::string> argv{NETNS_EXEC_BIN, "inspect",     "--allow-unrecorded-netns",
                                "--netns",      farm().path(), "--sockets"};
  for (auto _ : state) run_quiet(argv);
  set_counters(state);
}
#endif

void library(benchmark::State& state, bool owners) {
  static UniqueFd devnull = open_fd("/dev/null", O_WRONLY);
  inspect::CollectOptions options;
  options.find_owners = owners;
  for (auto _ : state) {
    inspect::Identity id{farm().path(), "", ns_id_of_fd(farm().fd(), "farm"), std::nullopt};
    auto report = inspect::collect_report(farm().fd(), farm().path(), id, options);
    std::string out = inspect::render_table(report, true);
    write_all(devnull.get(), out, "/dev/null");
    if (report.sockets.size() < farm().sockets())
      state.SkipWithError("sockets missing from the dump");
  }
  set_counters(state);
}

void register_all() {
  std::string n = "/" + std::to_string(pairs() * 2);
  benchmark::RegisterBenchmark(("ss" + n).c_str(), ss)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
#ifdef NETNS_EXEC_BIN
  benchmark::RegisterBenchmark(("inspect" + n).c_str(), inspect_cli)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
#endif
  benchmark::RegisterBenchmark(("library" + n).c_str(),
                               [](benchmark::State& s) { library(s, true); })
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark(("library_no_owner_scan" + n).c_str(),
                               [](benchmark::State& s) { library(s, false); })
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}

const bool registered = (register_all(), true);

#else

void not_built(benchmark::State& state) {
  for (auto _ : state) {}
  state.SkipWithError("netns_inspect is not built");
}
BENCHMARK(not_built);

#endif

}  // namespace
}  // namespace netns::bench
