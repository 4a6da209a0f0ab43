// The library as a multithreaded plugin uses it: no descriptor leaks over
// any path (successes, refusals, spawn failures, timeouts, the C ABI), many
// threads at once, the caller's threads never change namespace, and the
// socket source checks what the holder announces against what it sends.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "exec_fixture.hpp"
#include "netns/error.hpp"
#include "netns/fd_passing.hpp"
#include "netns/test/caller_signals.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/netns_exec.h"

namespace netns::test::exec {
namespace {

namespace ex = netns::exec;

spawn::Command command(std::vector<std::string> argv) {
  spawn::Command c;
  c.argv = std::move(argv);
  return c;
}

// A one-shot fake holder socket: accepts one peer and sends `header` + `fd`.
class FakeSocketHolder {
 public:
  FakeSocketHolder(const std::string& path, FdHeader header, int fd)
      : listener_(make_socket(AF_UNIX, SOCK_SEQPACKET, 0)) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener_.get(), 4) != 0)
      throw Error::sys("bind", path, errno);
    thread_ = std::thread([this, header = std::move(header), fd] {
      try {
        UniqueFd peer = accept_fd(listener_.get());
        send_fd(peer.get(), header, fd);
        char c;
        (void)!::read(peer.get(), &c, 1);  // until the client closes
      } catch (const Error&) {}
    });
  }
  ~FakeSocketHolder() {
    ::shutdown(listener_.get(), SHUT_RDWR);
    thread_.join();
  }

 private:
  UniqueFd listener_;
  std::thread thread_;
};

struct ExecLibrary : ExecFixture {};

TEST_F(ExecLibrary, NoDescriptorLeaksOverEveryPath) {
  NetnsChild ns, other;
  publish_holder(holder_dir, "ceph-a", ns);
  publish(holder_dir, record_for("ceph-m", ns.pid(), ns.ns_id()), other.ns_path());
  UniqueFd d = open_fd(holder_dir, O_RDONLY | O_DIRECTORY);
  symlink_atomic(d.get(), "ceph-d.net.ns", "/proc/999999999/ns/net", holder_dir);
  std::string bad_cfg = config("[{");
  const std::string link = holder_dir + "/ceph-a.net.ns";

  auto exercise = [&] {
    EXPECT_TRUE(ex::run(ex::Source::netns_path(link), command({"true"})).result.outcome.success());
    EXPECT_EQ(ex::run(ex::Source::netns_path(link), command({"no-such-cmd-x"})).exit_code(), 127);
    EXPECT_EQ(ex::run(ex::Source::netns_path(link), command({holder_dir})).exit_code(), 126);
    auto slow = command({"sleep", "5"});
    slow.timeout = std::chrono::milliseconds(50);
    slow.kill_grace = std::chrono::milliseconds(50);
    EXPECT_EQ(ex::run(ex::Source::netns_path(link), slow).exit_code(), 124);
    auto in_out = command({"cat"});
    in_out.stdin_data = "data";
    EXPECT_EQ(ex::run(ex::Source::netns_path(link), in_out).result.out.data, "data");

    ex::ResolveOptions wait;
    wait.wait_holder = std::chrono::milliseconds(30);
    for (const auto& source :
         {ex::Source::netns_path(holder_dir + "/none.net.ns"),
          ex::Source::netns_path(tmp / "no/dir/x.net.ns"),
          ex::Source::netns_path(holder_dir + "/ceph-d.net.ns"),
          ex::Source::netns_path(holder_dir + "/ceph-m.net.ns"),
          ex::Source::netns_path("/proc/self/ns/net"), ex::Source::netns_path("/proc/self/ns/mnt"),
          ex::Source::netns_path(holder_dir), ex::Source::cluster("ceph-a", bad_cfg),
          ex::Source::cluster("../x", bad_cfg), ex::Source::socket(holder_dir + "/x.net.sock")}) {
      for (const auto& options : {ex::ResolveOptions{}, wait}) {
        EXPECT_THROW(ex::run(source, command({"true"}), options), Error) << source.describe();
      }
    }

    netns_exec_request* req = netns_exec_request_new();
    const char* argv[] = {"true", nullptr};
    netns_exec_request_set_argv(req, argv);
    netns_exec_request_set_netns(req, link.c_str());
    netns_exec_result_free(netns_exec_run(req));
    netns_exec_request_set_netns(req, "/nonexistent");
    netns_exec_result_free(netns_exec_run(req));
    netns_exec_request_free(req);
  };
  exercise();  // first use opens the one lazily-created descriptor: the thread's inotify
               // (wait_path.cpp)
  auto before = open_fds();
  exercise();
  EXPECT_EQ(open_fds(), before);
}

TEST_F(ExecLibrary, EightThreadsAtOnce) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string expect = "net:[" + std::to_string(ns.ns_id().ino) + "]\n";
  const NsId caller = current_netns_id();
  std::atomic<int> good{0}, bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        try {
          auto r = ex::run(ex::Source::netns_path(holder_dir + "/ceph-a.net.ns"),
                           command({"readlink", "/proc/self/ns/net"}));
          bool ok = r.result.outcome.success() && r.result.out.data == expect &&
                    current_netns_id() == caller;
          (ok ? good : bad)++;
        } catch (const Error&) {
          bad++;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(good.load(), 80);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(current_netns_id(), caller);
}

TEST_F(ExecLibrary, ValidatedDescriptorIsTheOneEntered) {
  NetnsChild first, second;
  publish_holder(holder_dir, "ceph-a", first);
  auto ns = ex::resolve(ex::Source::netns_path(holder_dir + "/ceph-a.net.ns"));
  // The link is replaced after validation: the command still runs in the
  // namespace that was validated, never the new target.
  publish_holder(holder_dir, "ceph-a", second);
  auto r = ex::run_in(ns, command({"readlink", "/proc/self/ns/net"}));
  EXPECT_EQ(r.result.out.data, "net:[" + std::to_string(first.ns_id().ino) + "]\n");
}

// What the caller ignored, handled or blocked does not reach the command
// through exec::run or run_in: every signal SIG_DFL and an empty mask.
TEST_F(ExecLibrary, TheCommandStartsWithDefaultDispositionsAndAnEmptyMask) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  CallerSignals caller;
  const auto status = command({"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"});
  auto via_run = ex::run(ex::Source::netns_path(link), status);
  auto resolved = ex::resolve(ex::Source::netns_path(link));
  auto via_run_in = ex::run_in(resolved, status);
  // The control: this process has what it set.
  const std::string own = read_text("/proc/self/status");
  caller.restore();
  EXPECT_NE(own.find(CallerSignals::ignored_line()), std::string::npos) << own;
  for (const auto* r : {&via_run.result, &via_run_in.result}) {
    ASSERT_TRUE(r->outcome.success()) << r->outcome.describe();
    EXPECT_EQ(r->out.data, kDefaultSignalState);
  }
}

TEST_F(ExecLibrary, SocketSourceChecksTheHeader) {
  NetnsChild ns;
  UniqueFd nsfd = open_fd(ns.ns_path(), O_RDONLY);
  {
    std::string path = holder_dir + "/ceph-s.net.sock";
    FakeSocketHolder holder(path, FdHeader{FdHeader::kVersion, "ceph-s", ns.ns_id()}, nsfd.get());
    auto r = ex::run(ex::Source::socket(path), command({"readlink", "/proc/self/ns/net"}));
    EXPECT_EQ(r.result.out.data, "net:[" + std::to_string(ns.ns_id().ino) + "]\n");
  }
  {
    std::string path = holder_dir + "/ceph-t.net.sock";
    NsId wrong = ns.ns_id();
    wrong.ino += 1;
    FakeSocketHolder holder(path, FdHeader{FdHeader::kVersion, "ceph-t", wrong}, nsfd.get());
    try {
      ex::resolve(ex::Source::socket(path));
      ADD_FAILURE() << "accepted a descriptor that is not the announced namespace";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::identity_mismatch);
      EXPECT_NE(e.describe().find("cluster \"ceph-t\""), std::string::npos) << e.describe();
    }
  }
  {
    std::string path = holder_dir + "/ceph-u.net.sock";
    FakeSocketHolder holder(path, FdHeader{FdHeader::kVersion, "other", ns.ns_id()}, nsfd.get());
    EXPECT_THROW(ex::resolve(ex::Source::socket(path)), Error);
  }
}

TEST_F(ExecLibrary, CAbi) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  netns_exec_request* req = netns_exec_request_new();
  ASSERT_NE(req, nullptr);
  const char* argv[] = {"sh", "-c", "readlink /proc/self/ns/net; cat; echo key=AQBx >&2; exit 4",
                        nullptr};
  EXPECT_EQ(netns_exec_request_set_argv(req, argv), 0);
  EXPECT_EQ(netns_exec_request_set_netns(req, (holder_dir + "/ceph-a.net.ns").c_str()), 0);
  EXPECT_EQ(netns_exec_request_set_stdin(req, "in\n", 3), 0);
  EXPECT_EQ(netns_exec_request_set_identity(req, NETNS_EXEC_IDENTITY_REQUIRE), 0);
  EXPECT_EQ(netns_exec_request_set_identity(req, static_cast<netns_exec_identity>(3)), -EINVAL);
  EXPECT_EQ(netns_exec_request_set_argv(req, nullptr), -EINVAL);
  EXPECT_EQ(netns_exec_request_set_netns(nullptr, "/x"), -EINVAL);

  netns_exec_result* res = netns_exec_run(req);
  ASSERT_NE(res, nullptr);
  EXPECT_EQ(netns_exec_result_outcome(res), NETNS_EXEC_OUTCOME_EXITED);
  EXPECT_EQ(netns_exec_result_status(res), 4);
  EXPECT_EQ(netns_exec_result_exit_code(res), 4);
  size_t len = 0;
  std::string out = netns_exec_result_stdout(res, &len);
  EXPECT_EQ(out, "net:[" + std::to_string(ns.ns_id().ino) + "]\nin\n");
  EXPECT_EQ(len, out.size());
  // The command's own bytes: the C ABI never rewrites them (redaction is for our messages).
  EXPECT_EQ(std::string(netns_exec_result_stderr(res, nullptr)), "key=AQBx\n");
  EXPECT_EQ(netns_exec_result_netns_ino(res), ns.ns_id().ino);
  netns_exec_result_free(res);

  EXPECT_EQ(netns_exec_request_set_netns(req, (holder_dir + "/missing.net.ns").c_str()), 0);
  res = netns_exec_run(req);
  EXPECT_EQ(netns_exec_result_outcome(res), NETNS_EXEC_OUTCOME_REFUSED);
  EXPECT_EQ(netns_exec_result_exit_code(res), 125);
  EXPECT_EQ(std::string(netns_exec_result_error_code(res)), "not_found");
  EXPECT_NE(std::string(netns_exec_result_error(res)).find("ENOENT"), std::string::npos);
  netns_exec_result_free(res);
  netns_exec_request_free(req);

  EXPECT_EQ(netns_exec_run(nullptr), nullptr);
  netns_exec_request* empty = netns_exec_request_new();
  res = netns_exec_run(empty);
  EXPECT_EQ(netns_exec_result_outcome(res), NETNS_EXEC_OUTCOME_REFUSED);
  netns_exec_result_free(res);
  netns_exec_request_free(empty);
  netns_exec_result_free(nullptr);
  netns_exec_request_free(nullptr);
}

}  // namespace
}  // namespace netns::test::exec
