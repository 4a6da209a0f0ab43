// The config the chart renders leads netns-exec to the namespace the chart's
// holder command publishes: netNamespaceFilePath, the holder's --dir and the
// file names agree, and the executor reads the JSON as written.
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "chart_facts.hpp"
#include "netns/fd.hpp"
#include "netns/test/support.hpp"

namespace {
using namespace netns::test;

std::string link_of(const std::string& path) {
  char buf[128];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}
}  // namespace

TEST(GeneratedConfig, LeadsNetnsExecToTheHoldersNamespace) {
  NETNS_REQUIRE_ROOT();
  TempDir kubelet;
  NetnsChild pod;  // the holder pod's network namespace
  const std::string id = unique_name("cfg");

  const ChartFacts chart = chart_facts(id, false, kubelet.path(), 300s, "198.18.0.1:6789");
  const ChartHolder& holder = chart.holder("rbd.csi.ceph.com");
  auto argv = holder.command;
  ASSERT_EQ(argv.at(0), "/usr/bin/netns-holder");
  argv[0] = NETNS_HOLDER_BIN;  // the image's /usr/bin/netns-holder
  run_command({"mkdir", "-p", holder.dir});
  netns::UniqueFd pod_ns = netns::open_fd(pod.ns_path(), O_RDONLY);
  const int fd = pod_ns.get();
  Process running(argv, [fd] {
    if (::setns(fd, CLONE_NEWNET) != 0) ::_exit(120);
  });

  const std::string config_file = kubelet / "config.json";
  std::ofstream(config_file) << chart.config_json;

  const std::string link =
      nlohmann::json::parse(chart.config_json).at(0).at("rbd").at("netNamespaceFilePath");
  EXPECT_EQ(link, holder.dir + "/" + id + ".net.ns");
  ASSERT_TRUE(wait_until([&] { return !link_of(link).empty(); }, 10s)) << running.err();

  auto r =
      run_command({NETNS_EXEC_BIN, "run", "--cluster-id", id, "--config", config_file, "--kind",
                   "rbd", "--wait-holder", "5s", "--", "readlink", "/proc/self/ns/net"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, link_of(pod.ns_path()) + "\n");
  // The CephFS entry points at the cephfs driver's directory, where no holder
  // runs in this test: the executor names the path it looked for.
  auto missing = run_command({NETNS_EXEC_BIN, "run", "--cluster-id", id, "--config", config_file,
                              "--kind", "cephfs", "--", "true"});
  EXPECT_EQ(missing.exit_code, 125);
  EXPECT_NE(missing.err.find("cephfs.csi.ceph.com/" + id + ".net.ns"), std::string::npos)
      << missing.err;
  running.kill(SIGTERM);
  (void)running.wait(10s);
}
