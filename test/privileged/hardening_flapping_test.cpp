// The executor under a flapping holder: 8 threads run commands for
// NETNS_FLAP_SECONDS (default 30) while the holder for one cluster ID restarts
// in a loop, each time in a new network namespace, stopped alternately with
// SIGTERM (files withdrawn) and SIGKILL (stale link and record left behind).
// Each command prints its own /proc/self/ns/net. Every command must either
// have run in the namespace of a holder generation that was alive at some
// moment while the command was being resolved and run (the then-current,
// validated namespace) or have been refused (library: a netns::Error; CLI:
// exit 125) -- never the caller's namespace, never a dead generation's, never
// anything else.
//
// Sources: threads 0-3 the link (--netns) through the library, 4-5 the
// holder's socket through the library, 6-7 the netns-exec CLI with --netns.
// Odd threads wait up to 1 s for a missing holder file (inotify), even ones
// do not wait.
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include "holder_helpers.hpp"
#include "netns/error.hpp"
#include "netns/nsfd.hpp"
#include "netns_exec/executor.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using holder_test::Holder;
using netns::test::TempDir;
using netns::test::unique_name;

std::chrono::seconds flap_duration() {
  const char* env = std::getenv("NETNS_FLAP_SECONDS");
  int seconds = env != nullptr ? std::atoi(env) : 30;
  return std::chrono::seconds(seconds > 0 ? seconds : 30);
}

// One holder's life: its namespace and when it may have been current.
struct Generation {
  uint64_t netns_ino = 0;
  Clock::time_point born;  // before the holder was started
  Clock::time_point died;  // after it was reaped (max() while alive)
};

class Timeline {
 public:
  size_t begin(Clock::time_point born) {
    std::lock_guard lock(mu_);
    gens_.push_back({0, born, Clock::time_point::max()});
    return gens_.size() - 1;
  }
  void set_ino(size_t gen, uint64_t ino) {
    std::lock_guard lock(mu_);
    gens_[gen].netns_ino = ino;
  }
  void end(size_t gen, Clock::time_point died) {
    std::lock_guard lock(mu_);
    gens_[gen].died = died;
  }
  // Whether `ino` belongs to a generation alive at some moment of [from, to].
  bool current_during(uint64_t ino, Clock::time_point from, Clock::time_point to) const {
    std::lock_guard lock(mu_);
    for (const auto& g : gens_)
      if (g.netns_ino == ino && g.born <= to && g.died >= from) return true;
    return false;
  }
  bool known(uint64_t ino) const {
    std::lock_guard lock(mu_);
    for (const auto& g : gens_)
      if (g.netns_ino == ino) return true;
    return false;
  }
  size_t size() const {
    std::lock_guard lock(mu_);
    return gens_.size();
  }

 private:
  mutable std::mutex mu_;
  std::vector<Generation> gens_;
};

// "net:[4026532001]\n" -> 4026532001; 0 when it is not that.
uint64_t parse_ns_link(const std::string& text) {
  const std::string prefix = "net:[";
  if (text.compare(0, prefix.size(), prefix) != 0) return 0;
  return std::strtoull(text.c_str() + prefix.size(), nullptr, 10);
}

// A command that ran: judged after the run, when the timeline is complete
// (a command may finish before the flapper has noted the new holder's inode).
struct Ran {
  std::string kind;
  uint64_t ino = 0;       // what the command printed
  uint64_t reported = 0;  // what the library says it entered (0 for the CLI)
  Clock::time_point from, to;
};

struct Counts {
  std::mutex mu;
  std::vector<Ran> ran;
  std::map<std::string, int> refused;          // by reason
  std::map<std::string, std::string> example;  // the first message of each reason
  std::vector<std::string> violations;

  void add_ran(Ran r) {
    std::lock_guard lock(mu);
    ran.push_back(std::move(r));
  }
  void add_refused(const std::string& why, const std::string& message) {
    std::lock_guard lock(mu);
    if (++refused[why] == 1) example[why] = message.substr(0, message.find('\n'));
  }
  void violation(const std::string& what) {
    std::lock_guard lock(mu);
    violations.push_back(what);
  }
};

// Stops and joins the workers however the test body is left (an ASSERT
// returning early must not destroy joinable threads).
struct Workers {
  std::atomic<bool>& stop;
  std::vector<std::thread> threads;
  ~Workers() {
    stop = true;
    for (auto& t : threads)
      if (t.joinable()) t.join();
  }
};

TEST(HardeningFlapping, EveryCommandRanInTheCurrentNamespaceOrWasRefused) {
  NETNS_REQUIRE_ROOT();
  const auto duration = flap_duration();
  TempDir tmp;
  const std::string id = unique_name("flap");
  const std::string link = tmp / (id + ".net.ns");
  const std::string sock = tmp / (id + ".net.sock");
  const uint64_t own_ino = netns::current_netns_id().ino;

  Timeline timeline;
  Counts counts;
  std::atomic<bool> stop{false};
  std::atomic<bool> first_ready{false};

  auto worker = [&](int index) {
    const bool cli = index >= 6;
    const bool via_socket = index == 4 || index == 5;
    const std::string kind = cli ? "cli --netns" : via_socket ? "library socket" : "library netns";
    netns::exec::ResolveOptions options;
    if (index % 2 == 1) options.wait_holder = 1s;
    while (!stop.load()) {
      const auto from = Clock::now();
      uint64_t ino = 0;
      uint64_t reported = 0;  // what the executor says it entered (library only)
      if (cli) {
        std::vector<std::string> argv = {NETNS_EXEC_BIN, "run", "--netns", link};
        if (index % 2 == 1) argv.insert(argv.end(), {"--wait-holder", "1s"});
        argv.insert(argv.end(), {"--", "readlink", "/proc/self/ns/net"});
        auto r = netns::test::run_command(argv, holder_test::within(20s));
        if (!r.signaled && !r.timed_out && r.exit_code == 125) {
          counts.add_refused("cli exit 125", r.err);
          if (index % 2 == 0) std::this_thread::sleep_for(1ms);  // no busy loop without a holder
          continue;
        }
        if (!r.ok()) {
          counts.violation(kind + ": neither ran nor refused with 125: " + r.describe());
          continue;
        }
        ino = parse_ns_link(r.out);
      } else {
        netns::spawn::Command cmd;
        cmd.argv = {"readlink", "/proc/self/ns/net"};
        cmd.timeout = 10s;
        try {
          auto source = via_socket ? netns::exec::Source::socket(sock)
                                   : netns::exec::Source::netns_path(link);
          auto r = netns::exec::run(source, cmd, options);
          if (r.exit_code() == 125) {
            // Resolved, then the spawn itself failed (e.g. setns): also a refusal.
            counts.add_refused("spawn failed", r.result.outcome.describe());
            continue;
          }
          if (!r.result.outcome.success()) {
            counts.violation(kind + ": command " + r.result.outcome.describe() + ": " +
                             r.result.err.data);
            continue;
          }
          ino = parse_ns_link(r.result.out.data);
          reported = r.netns.ino;
        } catch (const netns::Error& e) {
          counts.add_refused(std::string("library ") + netns::errc_name(e.code()), e.describe());
          if (index % 2 == 0) std::this_thread::sleep_for(1ms);  // no busy loop without a holder
          continue;
        }
      }
      counts.add_ran(Ran{kind, ino, reported, from, Clock::now()});
    }
  };

  // The flapper runs on this thread: the holders' PR_SET_PDEATHSIG is tied to
  // the thread that forks them, and this one outlives them all.
  Workers workers{stop, {}};
  const auto deadline = Clock::now() + duration;
  int term_stops = 0, kill_stops = 0;
  for (int gen_no = 0; Clock::now() < deadline || gen_no < 2; ++gen_no) {
    size_t gen = timeline.begin(Clock::now());
    Holder h(tmp.path(), id, {"--socket"});
    ASSERT_TRUE(h.wait_ready()) << "generation " << gen_no << ": " << h.err();
    timeline.set_ino(gen, h.ns_id().ino);
    if (!first_ready.exchange(true))
      for (int i = 0; i < 8; ++i) workers.threads.emplace_back(worker, i);
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + (gen_no * 37) % 200));
    bool kill = gen_no % 3 == 2;  // every third one dies without withdrawing its files
    auto status = h.stop(kill ? SIGKILL : SIGTERM);
    timeline.end(gen, Clock::now());
    ASSERT_TRUE(status.has_value()) << "holder did not stop";
    (kill ? kill_stops : term_stops)++;
    // A short gap with no holder at all: the waiting threads bridge it.
    std::this_thread::sleep_for(std::chrono::milliseconds((gen_no * 13) % 40));
  }
  stop = true;
  for (auto& t : workers.threads) t.join();

  std::map<std::string, int> ran_by_kind;
  for (const Ran& r : counts.ran) {
    std::string at = r.kind + ": ran in net:[" + std::to_string(r.ino) + "]";
    if (r.ino == 0) {
      counts.violation(r.kind + ": no namespace printed");
    } else if (r.ino == own_ino) {
      counts.violation(at + ", the caller's own namespace");
    } else if (r.reported != 0 && r.reported != r.ino) {
      counts.violation(at + " but the executor reported net:[" + std::to_string(r.reported) + "]");
    } else if (!timeline.current_during(r.ino, r.from, r.to)) {
      counts.violation(at + (timeline.known(r.ino)
                                 ? ", a holder generation not alive during the command"
                                 : ", no holder's namespace at all"));
    } else {
      ++ran_by_kind[r.kind];
    }
  }

  int ran = 0, refused = 0;
  std::printf("flapping for %llds: %zu holder generations (%d SIGTERM, %d SIGKILL)\n",
              static_cast<long long>(duration.count()), timeline.size(), term_stops, kill_stops);
  for (const auto& [kind, n] : ran_by_kind) {
    std::printf("  ran in the then-current namespace  %-28s %6d\n", kind.c_str(), n);
    ran += n;
  }
  for (const auto& [why, n] : counts.refused) {
    std::printf("  refused                            %-28s %6d  e.g. %s\n", why.c_str(), n,
                counts.example[why].c_str());
    refused += n;
  }
  std::printf("  total: %d ran, %d refused, %zu violations\n", ran, refused,
              counts.violations.size());
  for (size_t i = 0; i < counts.violations.size() && i < 20; ++i)
    ADD_FAILURE() << counts.violations[i];
  EXPECT_TRUE(counts.violations.empty()) << counts.violations.size() << " violations";
  // Both outcomes must actually happen, or the test proved nothing.
  EXPECT_GT(ran, 0);
  EXPECT_GT(refused, 0);
  for (const char* kind : {"library netns", "library socket", "cli --netns"})
    EXPECT_GT(ran_by_kind[kind], 0) << kind << " never ran a command";
}

}  // namespace
