// The delete guard: waits while a Ceph session exists, returns within a
// second of it closing, gives up at max_wait.
#include <gtest/gtest.h>

#include <future>
#include <optional>

#include "inspect_fixture.hpp"
#include "netns_exec/inspect/guard.hpp"

namespace netns::test {
namespace {

using Clock = std::chrono::steady_clock;

// The storage network, and the inspected namespace's descriptor the guard reads.
struct InspectGuard : ::testing::Test {
  void SetUp() override {
    NETNS_REQUIRE_ROOT();
    net.emplace();
    fd = net->inspected_fd();
  }
  std::optional<StorageNet> net;
  UniqueFd fd;
};

TEST_F(InspectGuard, CountsEstablishedSessions) {
  UniqueFd listener = net->listen_mon(6789);
  EXPECT_EQ(inspect::count_sessions(fd.get(), "inspected", {}), 0u);
  UniqueFd a = net->connect_mon(6789);
  UniqueFd b = net->connect_mon(6789);
  EXPECT_EQ(inspect::count_sessions(fd.get(), "inspected", {}), 2u);
  inspect::CephPorts other;
  other.mon = {{3300, 3300}};
  EXPECT_EQ(inspect::count_sessions(fd.get(), "inspected", other), 0u)
      << "with 6789 not a Ceph port the sessions do not count";
}

TEST_F(InspectGuard, WaitsWhileASessionExistsAndReturnsSoonAfterItCloses) {
  auto session = net->open_session();
  inspect::GuardOptions options;
  options.max_wait = 20s;
  options.log_interval = 200ms;
  std::atomic<int> logged{0};
  auto result = std::async(std::launch::async, [&] {
    return inspect::wait_idle(fd.get(), "inspected", options, [&](const auto& sessions, auto) {
      if (!sessions.empty()) ++logged;
    });
  });
  EXPECT_EQ(result.wait_for(1500ms), std::future_status::timeout) << "returned while busy";
  EXPECT_GE(logged.load(), 2) << "sessions are logged at the log interval";
  auto closed = Clock::now();
  session.client.reset();
  ASSERT_EQ(result.wait_for(5s), std::future_status::ready);
  auto returned = Clock::now();
  auto r = result.get();
  EXPECT_EQ(r.outcome, inspect::GuardOutcome::idle);
  EXPECT_LT(returned - closed, test::scaled(1s));
}

TEST_F(InspectGuard, GivesUpAtMaxWait) {
  auto session = net->open_session();
  inspect::GuardOptions options;
  options.max_wait = 700ms;
  auto start = Clock::now();
  size_t last_logged = 0;
  auto r = inspect::wait_idle(fd.get(), "inspected", options,
                              [&](const auto& sessions, auto) { last_logged = sessions.size(); });
  auto took = Clock::now() - start;
  EXPECT_EQ(r.outcome, inspect::GuardOutcome::timed_out);
  EXPECT_EQ(r.sessions, 1u);
  EXPECT_EQ(last_logged, 1u);
  EXPECT_GE(took, 700ms);
  EXPECT_LT(took, test::scaled(1500ms));
}

}  // namespace
}  // namespace netns::test
