// The config the chart renders leads netns-exec to the namespace the chart's
// holder command publishes: netNamespaceFilePath, the holder's --dir and the
// file names agree, and the executor reads the JSON as written. Likewise the
// node plugin's environment (the Kustomize component's env, resolved in the
// chart's netns-exec-env) leads the nvme and mount.nfs shims there.
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

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

// nvmeof and NFS: what the chart renders for a cluster with `targets`, as the
// component hands it to the plugin (NETNS_EXEC_HOLDER_DIR, NETNS_EXEC_TARGETS),
// makes `nvme connect -a GATEWAY` and `mount.nfs SERVER:/...` run in the
// chart's holder of that driver; an address not declared runs where the plugin
// is, and a declared one whose holder is not there is refused (125, the path).
TEST(GeneratedPluginEnv, LeadsTheNvmeAndNfsShimsToTheHolders) {
  NETNS_REQUIRE_ROOT();
  TempDir kubelet;
  TempDir tools;
  NetnsChild pod;
  const std::string id = unique_name("gw");
  const std::string own = link_of("/proc/self/ns/net");
  ASSERT_NE(link_of(pod.ns_path()), own);

  const ChartFacts chart =
      chart_facts(id, false, kubelet.path(), 300s, "", {"nvmeof.csi.ceph.com", "nfs.csi.ceph.com"},
                  {"198.18.4.0/24"});
  // The shims first on PATH, then stand-ins for the real programs that print
  // the namespace they run in.
  const std::string bin = tools / "bin", real = tools / "real";
  ASSERT_EQ(::mkdir(bin.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(real.c_str(), 0755), 0);
  for (const char* name : {"nvme", "mount.nfs"}) {
    ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (bin + "/" + name).c_str()), 0);
    const std::string path = real + "/" + name;
    std::ofstream(path) << "#!/bin/sh\nreadlink /proc/self/ns/net\n";
    ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
  }
  auto shim = [&](const std::string& driver, std::vector<std::string> argv,
                  const std::map<std::string, std::string>& extra = {}) {
    RunOptions options;
    options.env = chart.plugin_env.at(driver);
    for (const auto& [k, v] : extra) (*options.env)[k] = v;
    (*options.env)["PATH"] = bin + ":" + real + ":/usr/bin:/bin";
    argv.insert(argv.begin(), {"/bin/sh", "-c", "exec \"$@\"", "sh"});
    return run_command(argv, options);
  };
  const auto connect = [](const std::string& address) {
    return std::vector<std::string>{"nvme", "connect", "-t", "tcp",  "-n", "nqn.2016-06.io.spdk:x",
                                    "-a",   address,   "-s", "4420", "-l", "1800"};
  };
  const std::vector<std::string> mount{"mount.nfs", "198.18.4.20:/export/vol1", "/mnt/vol1", "-o",
                                       "vers=4.1"};

  // No holder for either driver yet: refused, naming where it looked.
  auto refused = shim("nfs.csi.ceph.com", mount);
  EXPECT_EQ(refused.exit_code, 125) << refused.describe();
  EXPECT_NE(refused.err.find("nfs.csi.ceph.com/" + id + ".net.ns"), std::string::npos)
      << refused.err;

  netns::UniqueFd pod_ns = netns::open_fd(pod.ns_path(), O_RDONLY);
  const int fd = pod_ns.get();
  std::vector<std::unique_ptr<Process>> holders;
  for (const char* driver : {"nvmeof.csi.ceph.com", "nfs.csi.ceph.com"}) {
    const ChartHolder& holder = chart.holder(driver);
    ASSERT_EQ(chart.plugin_env.at(driver).at("NETNS_EXEC_HOLDER_DIR"), holder.dir);
    auto argv = holder.command;
    ASSERT_EQ(argv.at(0), "/usr/bin/netns-holder");
    argv[0] = NETNS_HOLDER_BIN;
    run_command({"mkdir", "-p", holder.dir});
    holders.push_back(std::make_unique<Process>(argv, [fd] {
      if (::setns(fd, CLONE_NEWNET) != 0) ::_exit(120);
    }));
    const std::string link = holder.dir + "/" + id + ".net.ns";
    ASSERT_TRUE(wait_until([&] { return !link_of(link).empty(); }, 10s)) << holders.back()->err();
  }

  auto r = shim("nvmeof.csi.ceph.com", connect("198.18.4.10"));
  EXPECT_EQ(r.out, link_of(pod.ns_path()) + "\n") << r.describe();
  r = shim("nfs.csi.ceph.com", mount);
  EXPECT_EQ(r.out, link_of(pod.ns_path()) + "\n") << r.describe();
  // Control: a gateway the chart's targets do not declare is refused (the
  // shim fails closed), and runs in the plugin's own namespace only with the
  // operator's opt-out.
  r = shim("nvmeof.csi.ceph.com", connect("198.18.9.10"));
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_EQ(r.out, "") << r.describe();
  r = shim("nvmeof.csi.ceph.com", connect("198.18.9.10"), {{"NETNS_EXEC_UNMATCHED", "own-netns"}});
  EXPECT_EQ(r.out, own + "\n") << r.describe();
  for (auto& h : holders) {
    h->kill(SIGTERM);
    (void)h->wait(10s);
  }
}
