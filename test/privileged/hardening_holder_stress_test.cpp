// netns-holder under stress: a flood of mixed signals, 1,000
// orphaned zombies (and 1,000 living orphans) reparented to it as PID 1 of a
// pid namespace, and 100 socket clients that connect and never read. After
// each: the holder is still up, reaped every zombie, keeps no descriptor per
// client, serves the next client within a second, and still stops cleanly on
// SIGTERM.
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "holder_helpers.hpp"
#include "netns/fd_passing.hpp"
#include "netns/nsfd.hpp"
#include "netns/proc.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using holder_test::Holder;
using holder_test::Mode;
using netns::test::children_of;
using netns::test::TempDir;
using netns::test::unique_name;

// A holder that stops serving is what these tests rule out; 5 s is far from the
// microseconds a client takes and safe on a loaded, shared machine.
constexpr auto kServeWithin = 5s;

netns::UniqueFd connect_to(const std::string& path, std::chrono::seconds timeout = 30s) {
  netns::UniqueFd sock = netns::make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
  // Bounds both a connect stuck on a full backlog and a recv that never gets
  // an answer: a holder that stops serving fails the test instead of hanging it.
  timeval tv{static_cast<time_t>(timeout.count()), 0};
  ::setsockopt(sock.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  ::setsockopt(sock.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    throw netns::Error::sys("connect", path, errno);
  return sock;
}

// One client, start to finish: connect, receive, check the fd. Returns how
// long it took; fails the test when the fd is not the holder's namespace.
std::chrono::milliseconds serve_one_client(const std::string& sock_path,
                                           const netns::NsId& expected) {
  auto t0 = Clock::now();
  netns::UniqueFd sock = connect_to(sock_path);
  netns::ReceivedFd got = netns::receive_fd(sock.get(), sock_path);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
  EXPECT_EQ(got.header.netns, expected);
  EXPECT_EQ(netns::require_netns_fd(got.fd.get(), "received fd"), expected);
  return took;
}

// Field 3 of /proc/PID/stat: R, S, D, T (stopped), Z, ...
char process_state(pid_t pid) {
  std::optional<netns::ProcStat> stat = netns::read_stat(pid);
  return stat ? stat->state : '?';
}

size_t open_fd_count(pid_t pid) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd"))
    ++n;
  return n;
}

// Every catchable signal except SIGTERM/SIGINT (which stop the holder). The
// holder blocks them all and reads them from its signalfd, so even SIGSEGV or
// SIGTSTP sent with kill(2) must neither kill nor stop it.
std::vector<int> flood_signals() {
  std::vector<int> sigs = {SIGHUP,    SIGQUIT, SIGILL,   SIGTRAP, SIGABRT, SIGBUS,    SIGFPE,
                           SIGUSR1,   SIGSEGV, SIGUSR2,  SIGPIPE, SIGALRM, SIGSTKFLT, SIGCHLD,
                           SIGCONT,   SIGTSTP, SIGTTIN,  SIGTTOU, SIGURG,  SIGXCPU,   SIGXFSZ,
                           SIGVTALRM, SIGPROF, SIGWINCH, SIGIO,   SIGPWR,  SIGSYS};
  for (int rt = SIGRTMIN; rt <= SIGRTMAX; ++rt) sigs.push_back(rt);
  return sigs;
}

// Asserts the holder is alive, not stopped, and serves within a second.
void expect_healthy(Holder& h, const std::string& sock_path, const char* after) {
  ASSERT_TRUE(h.process().running()) << "holder died after " << after << ": " << h.err();
  char state = process_state(h.pid());
  EXPECT_TRUE(state == 'S' || state == 'R') << "holder state " << state << " after " << after;
  auto took = serve_one_client(sock_path, h.ns_id());
  EXPECT_LT(took, kServeWithin) << "next client after " << after;
}

void expect_clean_stop(Holder& h, const TempDir& tmp, const std::string& id) {
  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value()) << "holder did not exit on SIGTERM: " << h.err();
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_FALSE(holder_test::exists(tmp / (id + ".holder.json")));
  EXPECT_FALSE(holder_test::exists(tmp / (id + ".net.sock")));
}

TEST(HardeningHolderStress, ThousandMixedSignalsWhileServing) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("hsig");
  Holder h(tmp.path(), id, {"--socket"}, Mode::own_netns);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  const std::string sock_path = tmp / (id + ".net.sock");
  const size_t fds_before = open_fd_count(h.pid());

  const std::vector<int> sigs = flood_signals();
  int sent = 0, queue_full = 0;
  for (int i = 0; i < 1000; ++i) {
    int sig = sigs[static_cast<size_t>(i) % sigs.size()];
    if (::kill(h.pid(), sig) == 0) {
      ++sent;
    } else {
      // Real-time signals queue; a full queue (RLIMIT_SIGPENDING) is the only
      // acceptable refusal.
      ASSERT_EQ(errno, EAGAIN) << "kill(" << sig << "): " << std::strerror(errno);
      ++queue_full;
    }
    // Clients interleaved with the flood: a signal burst must not starve the socket.
    if (i % 100 == 99) {
      auto took = serve_one_client(sock_path, h.ns_id());
      EXPECT_LT(took, kServeWithin) << "client after " << i + 1 << " signals";
    }
  }
  std::printf("signals sent: %d (%d refused with EAGAIN), %zu kinds\n", sent, queue_full,
              sigs.size());
  EXPECT_GE(sent, 900);
  expect_healthy(h, sock_path, "1000 signals");
  EXPECT_TRUE(netns::test::wait_until([&] { return open_fd_count(h.pid()) == fds_before; }, 10s))
      << "the holder has " << open_fd_count(h.pid()) << " descriptors, " << fds_before << " before";
  EXPECT_EQ(h.err().find("fatal"), std::string::npos) << h.err();
  expect_clean_stop(h, tmp, id);
}

// Starts `count` processes in the pid namespace `pidns_fd` and orphans them:
// our child joins the namespace for its children (setns(CLONE_NEWPID) takes
// effect on the next fork) and forks a "parent" inside it, which forks the
// `count` processes. When that parent exits, they are reparented to the
// child reaper of *its* pid namespace: the holder. (Had they been forked by a
// process outside the namespace, they would go to that process's reaper, the
// host's init.) With `gate` >= 0 each waits for EOF on it (living orphans);
// otherwise each exits at once (zombies of the parent until it exits, then of
// PID 1). The parent exits when `release_read` reaches EOF. Only
// async-signal-safe calls after fork. Returns our child's pid; the parent is
// its only child.
pid_t spawn_orphans(int pidns_fd, int count, int gate, int release_read, int release_write,
                    int gate_write) {
  pid_t child = ::fork();
  if (child != 0) return child;
  ::close(release_write);
  if (gate_write >= 0) ::close(gate_write);
  if (::setns(pidns_fd, CLONE_NEWPID) != 0) ::_exit(10);
  pid_t parent = ::fork();
  if (parent < 0) ::_exit(11);
  if (parent > 0) {
    int status = 0;
    while (::waitpid(parent, &status, 0) < 0 && errno == EINTR) {}
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 12);
  }
  for (int i = 0; i < count; ++i) {
    pid_t pid = ::fork();
    if (pid < 0) ::_exit(13);
    if (pid == 0) {
      char byte;
      if (gate >= 0)
        while (::read(gate, &byte, 1) < 0 && errno == EINTR) {}
      ::_exit(0);
    }
  }
  char byte;
  while (::read(release_read, &byte, 1) < 0 && errno == EINTR) {}
  ::_exit(0);
}

// The pid of the orphans' parent (our child's only child), once it exists.
pid_t orphans_parent(pid_t child) {
  pid_t parent = 0;
  netns::test::wait_until(
      [&] {
        auto kids = children_of(child);
        parent = kids.size() == 1 ? kids[0] : 0;
        return parent > 0;
      },
      10s);
  return parent;
}

TEST(HardeningHolderStress, ReapsThousandOrphanedZombiesAsPid1) {
  NETNS_REQUIRE_ROOT();
  constexpr int kOrphans = 1000;
  TempDir tmp;
  std::string id = unique_name("hzom");
  Holder h(tmp.path(), id, {"--socket"}, Mode::pid1);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  const std::string sock_path = tmp / (id + ".net.sock");
  netns::UniqueFd pidns = netns::open_fd("/proc/" + std::to_string(h.pid()) + "/ns/pid", O_RDONLY);

  // Round 1: 1000 processes exit at once and wait as zombies of our child;
  // when it exits, all of them are reparented to the holder in one go.
  {
    netns::Pipe release = netns::make_pipe();
    pid_t child =
        spawn_orphans(pidns.get(), kOrphans, -1, release.read.get(), release.write.get(), -1);
    ASSERT_GT(child, 0);
    release.read.reset();
    pid_t parent = orphans_parent(child);
    bool all_zombies = parent > 0 && netns::test::wait_until(
                                         [&] {
                                           auto kids = children_of(parent);
                                           if (kids.size() != static_cast<size_t>(kOrphans))
                                             return false;
                                           for (pid_t k : kids)
                                             if (process_state(k) != 'Z') return false;
                                           return true;
                                         },
                                         30s, 20ms);
    std::vector<pid_t> zombies = children_of(parent);
    release.write.reset();  // the parent exits; its zombies go to PID 1
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(all_zombies) << zombies.size() << " of " << kOrphans << " zombies (child status "
                             << status << ")";
    ASSERT_EQ(holder_test::exit_code(status), 0);
    EXPECT_TRUE(netns::test::wait_until([&] { return children_of(h.pid()).empty(); }, 10s))
        << children_of(h.pid()).size() << " zombies left unreaped";
    size_t left = 0;
    for (pid_t z : zombies) left += process_state(z) == 'Z';
    EXPECT_EQ(left, 0u) << "zombies still present";
    std::printf("round 1: %zu zombies reparented and reaped\n", zombies.size());
  }
  expect_healthy(h, sock_path, "1000 reparented zombies");

  // Round 2: 1000 living orphans; we see them adopted by the holder, then
  // release them all at once so their exits (and SIGCHLDs) coalesce.
  {
    netns::Pipe release = netns::make_pipe();
    netns::Pipe gate = netns::make_pipe();
    pid_t child = spawn_orphans(pidns.get(), kOrphans, gate.read.get(), release.read.get(),
                                release.write.get(), gate.write.get());
    ASSERT_GT(child, 0);
    release.read.reset();
    gate.read.reset();
    pid_t parent = orphans_parent(child);
    bool forked =
        parent > 0 &&
        netns::test::wait_until(
            [&] { return children_of(parent).size() == static_cast<size_t>(kOrphans); }, 30s, 20ms);
    release.write.reset();
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(forked) << "child status " << status;
    bool adopted = netns::test::wait_until(
        [&] { return children_of(h.pid()).size() == static_cast<size_t>(kOrphans); }, 10s);
    EXPECT_TRUE(adopted) << children_of(h.pid()).size() << " of " << kOrphans
                         << " orphans reparented to the holder";
    gate.write.reset();  // every orphan exits now
    EXPECT_TRUE(netns::test::wait_until([&] { return children_of(h.pid()).empty(); }, 10s))
        << children_of(h.pid()).size() << " children left unreaped";
    std::printf("round 2: %d living orphans adopted, released and reaped\n", kOrphans);
  }
  expect_healthy(h, sock_path, "1000 released orphans");
  expect_clean_stop(h, tmp, id);
}

TEST(HardeningHolderStress, HundredClientsThatNeverReadDoNotBlockTheNext) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("hidl");
  Holder h(tmp.path(), id, {"--socket"}, Mode::own_netns);
  ASSERT_TRUE(h.wait_ready()) << h.err();
  const std::string sock_path = tmp / (id + ".net.sock");
  const size_t fds_before = open_fd_count(h.pid());

  std::vector<netns::UniqueFd> idle;
  idle.reserve(100);
  for (int i = 0; i < 100; ++i) idle.push_back(connect_to(sock_path));  // connect, never read
  for (int i = 0; i < 10; ++i) {
    auto took = serve_one_client(sock_path, h.ns_id());
    EXPECT_LT(took, kServeWithin) << "client " << i << " behind 100 idle ones";
  }
  // Every idle client was answered and closed by the holder: it keeps no
  // descriptor per client, however long the clients keep theirs.
  EXPECT_TRUE(netns::test::wait_until([&] { return open_fd_count(h.pid()) == fds_before; }, 10s))
      << open_fd_count(h.pid()) << " descriptors, " << fds_before << " before";
  expect_healthy(h, sock_path, "100 idle clients");
  idle.clear();
  expect_healthy(h, sock_path, "100 idle clients hung up");
  expect_clean_stop(h, tmp, id);
}

}  // namespace
