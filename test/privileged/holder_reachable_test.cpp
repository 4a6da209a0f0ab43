// netns-holder --require-reachable: nothing is published until a monitor
// accepts a TCP connect from the holder's namespace; `check` probes it again.
// The "monitor" is a listener in a namespace this test creates, joined to
// the holder's by a veth pair on 198.18.20.0/24; nothing else is reachable.
#include "holder_helpers.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::exists;
using holder_test::Holder;
using netns::test::NetnsChild;
using netns::test::Process;
using netns::test::TempDir;
using netns::test::unique_name;

const std::string kMonitor = "198.18.20.1:3300";

void run_ok(const std::vector<std::string>& argv) {
  auto r = netns::test::run_command(argv, holder_test::within(10s));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
}

std::vector<std::string> in_ns(const std::string& ns, std::vector<std::string> argv) {
  std::vector<std::string> out = {"nsenter", "--net=" + ns, "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

// A TCP listener on the monitor's address, in `ns`, until destroyed (by pid).
std::unique_ptr<Process> listen_in(const NetnsChild& ns) {
  auto p = std::make_unique<Process>(in_ns(
      ns.ns_path(), {"/usr/bin/python3", "-c",
                     "import socket,sys,time\n"
                     "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                     "s.bind(('198.18.20.1', 3300)); s.listen(16); print('listening', flush=True)\n"
                     "while True:\n  c,_=s.accept(); c.close()\n"}));
  netns::test::wait_until([&] { return p->out().find("listening") != std::string::npos; }, 10s);
  return p;
}

netns::test::RunResult check(const Holder& h, const std::string& dir, const std::string& id,
                             bool reachable = true) {
  std::vector<std::string> argv = {holder_test::kHolder, "check", "--cluster-id", id, "--dir", dir};
  if (reachable) argv.insert(argv.end(), {"--require-reachable", kMonitor});
  return netns::test::run_command(in_ns(h.ns_path(), argv), holder_test::within(15s));
}

bool logged(const Holder& h, const std::string& text, std::chrono::milliseconds within = 10s) {
  return netns::test::wait_until([&] { return h.err().find(text) != std::string::npos; }, within);
}

TEST(HolderReachable, PublishesOnlyOnceAMonitorAnswersAndCheckProbesAgain) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("reach");
  const std::string record = tmp / (id + ".holder.json");
  // Two monitors; the second never answers (no route to it): one is enough.
  Holder h(tmp.path(), id,
           {"--require-reachable", "198.18.21.9:6789", "--require-reachable", kMonitor});

  // No interface, no route: the connect fails at once, and it is said.
  ASSERT_TRUE(logged(h, "not publishing yet: no monitor reachable: ")) << h.err();
  ASSERT_TRUE(logged(h, kMonitor + " unreachable (Network is unreachable (ENETUNREACH))"))
      << h.err();
  EXPECT_FALSE(exists(record));
  EXPECT_TRUE(exists(tmp / (id + ".lock")));

  // A route to a host with no listener: refused, still nothing published.
  NetnsChild mon;
  std::string peer = unique_name("m");
  run_ok(in_ns(h.ns_path(), {"ip", "link", "add", "net1", "type", "veth", "peer", "name", peer,
                             "netns", std::to_string(mon.pid())}));
  run_ok(in_ns(h.ns_path(), {"ip", "addr", "add", "198.18.20.5/24", "dev", "net1"}));
  run_ok(in_ns(h.ns_path(), {"ip", "link", "set", "net1", "up"}));
  run_ok(in_ns(mon.ns_path(), {"ip", "addr", "add", "198.18.20.1/24", "dev", peer}));
  run_ok(in_ns(mon.ns_path(), {"ip", "link", "set", peer, "up"}));
  ASSERT_TRUE(logged(h, kMonitor + " refused (Connection refused (ECONNREFUSED))", 20s)) << h.err();
  EXPECT_NE(h.err().find("198.18.21.9:6789 unreachable"), std::string::npos) << h.err();
  EXPECT_FALSE(exists(record)) << h.err();

  // The monitor comes up: the next attempt (at most 10 s later) publishes.
  auto listener = listen_in(mon);
  ASSERT_TRUE(logged(h, "monitor reachable: " + kMonitor + " connected", 30s)) << h.err();
  ASSERT_TRUE(h.wait_ready()) << h.err();
  EXPECT_TRUE(exists(record));

  auto ok = check(h, tmp.path(), id);
  EXPECT_EQ(ok.exit_code, 0) << ok.describe();
  EXPECT_NE(ok.out.find("monitor reachable: " + kMonitor + " connected"), std::string::npos)
      << ok.out;

  // The monitor goes away: check fails naming it; the files stay.
  listener->kill(SIGKILL);
  listener->wait(10s);
  auto lost = check(h, tmp.path(), id);
  EXPECT_EQ(lost.exit_code, 1) << lost.describe();
  EXPECT_NE(lost.err.find("no monitor reachable from this namespace: " + kMonitor + " refused"),
            std::string::npos)
      << lost.err;
  EXPECT_TRUE(exists(record));
  // The control: without --require-reachable the same probe passes, so the
  // failure above is the monitor's, not the files'.
  auto plain = check(h, tmp.path(), id, false);
  EXPECT_EQ(plain.exit_code, 0) << plain.describe();

  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
}

TEST(HolderReachable, SigtermWhileWaitingPublishesNothing) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string id = unique_name("reach2");
  // Two monitors unreachable: both named; SIGTERM ends the wait at once.
  Holder h(tmp.path(), id,
           {"--require-reachable", kMonitor, "--require-reachable", "198.18.20.2:6789"});
  ASSERT_TRUE(logged(h, kMonitor + " unreachable")) << h.err();
  EXPECT_NE(h.err().find("198.18.20.2:6789 unreachable"), std::string::npos) << h.err();
  auto status = h.stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(holder_test::exit_code(*status), 0) << h.err();
  EXPECT_NE(h.err().find("published nothing"), std::string::npos) << h.err();
  EXPECT_FALSE(exists(tmp / (id + ".holder.json")));
}

TEST(HolderReachable, RejectsAnAddressWithoutPort) {
  for (const char* bad :
       {"198.18.20.1", "198.18.20.1:0", "monitor.example:3300", "2001:db8::1:3300"}) {
    auto r = netns::test::run_command({holder_test::kHolder, "--cluster-id", "x", "--dir",
                                       "/nonexistent", "--require-reachable", bad},
                                      holder_test::within(10s));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.describe();
    EXPECT_NE(r.err.find(std::string("--require-reachable \"") + bad + "\" is not ADDR:PORT"),
              std::string::npos)
        << r.err;
  }
}

}  // namespace
