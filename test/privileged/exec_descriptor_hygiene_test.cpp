// What the command sees on every entry point that stays its parent: exactly
// descriptors 0, 1 and 2 — never the namespace descriptor (a leaked one in a
// ceph-fuse daemon would pin the namespace for ever), never one of the
// caller's — with the library's run() for each source (link, socket), run_in,
// the Ceph runner and the C ABI, the last from many threads at once (this
// file runs under TSan with the privileged label). The nsenter form, which
// passes the caller's descriptors on like nsenter, is in
// exec_nsenter_parity_test.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "exec_fixture.hpp"
#include "netns/error.hpp"
#include "netns/fd_passing.hpp"
#include "netns_exec/ceph/ceph.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/netns_exec.h"

namespace netns::test::exec {
namespace {

namespace ex = netns::exec;

// `ls /proc/self/fd` lists its own descriptors, the directory it reads (3)
// included: a clean command prints exactly this.
const std::string kClean = "0\n1\n2\n3\n";

spawn::Command list_fds() {
  spawn::Command c;
  c.argv = {"ls", "/proc/self/fd"};
  return c;
}

struct DescriptorHygiene : HeldExecFixture {
  void SetUp() override {
    HeldExecFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // A descriptor of the caller that is not close-on-exec: the command must
    // not get it either.
    leaky = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(leaky, 3);
  }
  void TearDown() override {
    if (leaky >= 0) ::close(leaky);
  }
  int leaky = -1;
};

TEST_F(DescriptorHygiene, LibraryRunAndRunIn) {
  auto r = ex::run(ex::Source::netns_path(link), list_fds());
  ASSERT_TRUE(r.result.outcome.success()) << r.result.err.data;
  EXPECT_EQ(r.result.out.data, kClean);
  // The ceph-csi config source: the config file is opened and closed too.
  std::string cfg =
      config(R"([{"clusterID":"ceph-a","rbd":{"netNamespaceFilePath":")" + link + R"("}}])");
  auto by_cluster = ex::run(ex::Source::cluster("ceph-a", cfg), list_fds());
  ASSERT_TRUE(by_cluster.result.outcome.success()) << by_cluster.result.err.data;
  EXPECT_EQ(by_cluster.result.out.data, kClean);
  auto resolved = ex::resolve(ex::Source::netns_path(link));
  auto in = ex::run_in(resolved, list_fds());
  EXPECT_EQ(in.result.out.data, kClean);
  // With stdin data and a cwd too (more descriptors prepared by the engine).
  auto fed = list_fds();
  fed.stdin_data = "x";
  fed.cwd = "/";
  EXPECT_EQ(ex::run_in(resolved, fed).result.out.data, kClean);
}

TEST_F(DescriptorHygiene, LibrarySocketSource) {
  // A one-shot holder socket that hands over the namespace descriptor.
  UniqueFd nsfd = open_fd(ns->ns_path(), O_RDONLY);
  std::string path = holder_dir + "/ceph-s.net.sock";
  UniqueFd listener = make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener.get(), 1), 0);
  std::thread holder([&] {
    try {
      UniqueFd peer = accept_fd(listener.get());
      send_fd(peer.get(), FdHeader{FdHeader::kVersion, "ceph-s", ns->ns_id()}, nsfd.get());
      char c;
      (void)!::read(peer.get(), &c, 1);
    } catch (const Error&) {}
  });
  auto r = ex::run(ex::Source::socket(path), list_fds());
  ::shutdown(listener.get(), SHUT_RDWR);
  holder.join();
  ASSERT_TRUE(r.result.outcome.success()) << r.result.err.data;
  EXPECT_EQ(r.result.out.data, kClean);
}

TEST_F(DescriptorHygiene, CephRunner) {
  // The volume lock is held while the command runs: its descriptor must not
  // reach the command either. It lives in a directory of the test's own.
  netns::test::TempDir locks;
  ceph::Settings settings;
  settings.lock_dir = locks / "volumes";
  ceph::Runner runner(settings);
  auto resolved = ex::resolve(ex::Source::netns_path(link));
  ceph::Target target;
  target.netns_fd = resolved.fd.get();
  auto r = runner.run_serialized("list", "fds", list_fds(), target);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.process.out.data, kClean);
}

TEST_F(DescriptorHygiene, CAbiFromManyThreads) {
  // Many threads through the C ABI at once: every command runs in the
  // holder's namespace, sees exactly 0..2, and gets its own bytes back
  // untouched (a "key = V" line is not redacted). No descriptor of ours
  // remains afterwards.
  const std::string expect_ns = "net:[" + std::to_string(ns->ns_id().ino) + "]\n";
  const std::string script =
      "readlink /proc/self/ns/net; echo 'key = AQBrawbytes=='; ls /proc/self/fd";
  // One run first: resolve() keeps the holder's verified pidfd for this
  // record (record_cache.hpp), one descriptor for the life of the process,
  // whatever the number of runs. A leak would grow with the runs below.
  {
    netns_exec_request* req = netns_exec_request_new();
    const char* argv[] = {"true", nullptr};
    netns_exec_request_set_argv(req, argv);
    netns_exec_request_set_netns(req, link.c_str());
    netns_exec_result* res = netns_exec_run(req);
    ASSERT_EQ(netns_exec_result_outcome(res), NETNS_EXEC_OUTCOME_EXITED)
        << netns_exec_result_error(res);
    netns_exec_result_free(res);
    netns_exec_request_free(req);
  }
  const std::vector<int> before = open_fds();
  constexpr int kThreads = 8, kRuns = 12;
  std::atomic<int> good{0};
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRuns; ++i) {
        netns_exec_request* req = netns_exec_request_new();
        const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
        netns_exec_request_set_argv(req, argv);
        netns_exec_request_set_netns(req, link.c_str());
        netns_exec_request_set_timeout_ms(req, 60000);
        netns_exec_result* res = netns_exec_run(req);
        size_t len = 0;
        std::string out = netns_exec_result_stdout(res, &len);
        // ls runs as a child of sh: sh's fd list is ls's (0..2 and the dir).
        if (netns_exec_result_outcome(res) == NETNS_EXEC_OUTCOME_EXITED &&
            netns_exec_result_status(res) == 0 && len == out.size() &&
            out == expect_ns + "key = AQBrawbytes==\n" + kClean)
          ++good;
        else
          failures[t] = out + " / " + netns_exec_result_error(res);
        netns_exec_result_free(res);
        netns_exec_request_free(req);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(good.load(), kThreads * kRuns);
  for (const auto& f : failures) EXPECT_EQ(f, "");
  EXPECT_EQ(open_fds(), before);
}

}  // namespace
}  // namespace netns::test::exec
