// Transparent mode for the kernel clients without a ceph-csi config:
// netns-exec installed as `nvme` and `mount.nfs`/`mount.nfs4` runs the real
// program in the namespace of the holder NETNS_EXEC_TARGETS declares for the
// address the command names, refuses (125, nothing runs) a connect or mount
// to an address no holder declares, and runs every other call (disconnect,
// list-subsys, umount) untouched. The real programs are
// stand-ins that record the namespace they ran in and their argv and exit
// with a status of their own; ceph-csi's nvmeof node-plugin calls are
// replayed from golden lists (test/fixtures/shim/ceph-csi-nvmeof-argv.txt).
// The VM scenarios kernel.nvme.* / kernel.nfs.* show the real kernel clients.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "exec_fixture.hpp"

namespace netns::test::exec {
namespace {

constexpr int kStandInStatus = 7;

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

struct ShimTargets : HeldExecFixture {
  ShimTargets() : HeldExecFixture("gw-a") {}
  void SetUp() override {
    HeldExecFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    bin = tmp.subdir("bin");
    real = tmp.subdir("real");
    record = tmp / "record";
    for (const char* name : {"nvme", "mount.nfs", "mount.nfs4", "umount.nfs", "umount.nfs4"}) {
      ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (bin + "/" + name).c_str()), 0);
      const std::string path = real + "/" + name;
      std::ofstream(path) << "#!/bin/sh\n"
                             "{ readlink /proc/$$/ns/net; echo \"$0\"; for a in \"$@\"; do "
                             "printf '%s\\n' \"$a\"; done; } > \"$RECORD\"\n"
                             "echo out-of-"
                          << name << "\nexit " << kStandInStatus << "\n";
      ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
    }
    env = {{"PATH", bin + ":" + real + ":/usr/bin:/bin"},
           {"RECORD", record},
           {"NETNS_EXEC_HOLDER_DIR", holder_dir},
           {"NETNS_EXEC_TARGETS", "gw-a=198.18.4.0/24,198.18.6.2"}};
  }

  // `NAME ARGS` as a shell runs it, the shim first on PATH.
  [[nodiscard]] RunResult shim(const std::vector<std::string>& argv) const {
    std::vector<std::string> sh{"/bin/sh", "-c", "exec \"$@\"", "sh"};
    sh.insert(sh.end(), argv.begin(), argv.end());
    RunOptions options;
    options.env = env;
    return run_command(sh, options);
  }
  // The stand-in's record: namespace, then $0, then argv; empty when it did not run.
  [[nodiscard]] std::vector<std::string> recorded() const {
    std::ifstream in(record);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
  void expect_ran(const std::vector<std::string>& argv, const std::string& where) {
    SCOPED_TRACE(argv.front() + " " + (argv.size() > 1 ? argv[1] : "") + " in " + where);
    ::unlink(record.c_str());
    RunResult r = shim(argv);
    EXPECT_EQ(r.exit_code, kStandInStatus) << r.describe();
    EXPECT_EQ(r.out, "out-of-" + argv.front() + "\n");
    std::vector<std::string> rec = recorded();
    ASSERT_GE(rec.size(), 2u) << "the real " << argv.front() << " did not run: " << r.describe();
    EXPECT_EQ(rec[0], where == "holder" ? ns_text(ns->ns_id()) : ns_text(current_netns_id()));
    EXPECT_EQ(rec[1], real + "/" + argv.front()) << "not the real program after the shim";
    EXPECT_EQ(std::vector<std::string>(rec.begin() + 2, rec.end()),
              std::vector<std::string>(argv.begin() + 1, argv.end()))
        << "argv changed on the way";
  }

  // Refused: 125, the real program not run, stderr naming each of `needles`.
  void expect_refused(const std::vector<std::string>& argv,
                      const std::vector<std::string>& needles) {
    SCOPED_TRACE(argv.front() + " " + (argv.size() > 1 ? argv[1] : "") + " refused");
    ::unlink(record.c_str());
    RunResult r = shim(argv);
    EXPECT_EQ(r.exit_code, 125) << r.describe();
    EXPECT_EQ(r.out, "") << "the real " << argv.front() << " ran";
    EXPECT_TRUE(recorded().empty()) << "the real " << argv.front() << " ran";
    for (const auto& n : needles)
      EXPECT_NE(r.err.find(n), std::string::npos) << "missing " << n << " in " << r.err;
    EXPECT_NE(r.err.find("check: "), std::string::npos) << r.err;
  }

  std::string bin, real, record;
  std::map<std::string, std::string> env;
};

TEST_F(ShimTargets, CephCsiNvmeofCallsRunWhereTheirTargetIs) {
  ASSERT_NE(ns->ns_id(), current_netns_id());
  std::ifstream golden(std::string(NETNS_SOURCE_DIR) +
                       "/test/fixtures/shim/ceph-csi-nvmeof-argv.txt");
  ASSERT_TRUE(golden) << "the golden argv list is missing";
  size_t holder = 0, own = 0, refused = 0;
  for (std::string line; std::getline(golden, line);) {
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> w = words(line);
    ASSERT_GE(w.size(), 2u) << line;
    const std::string where = w.front();
    const std::vector<std::string> argv(w.begin() + 1, w.end());
    if (where == "refused") {
      ++refused;
      expect_refused(argv, {"NETNS_EXEC_TARGETS"});
      continue;
    }
    ASSERT_TRUE(where == "holder" || where == "own") << line;
    (where == "holder" ? holder : own)++;
    expect_ran(argv, where);
  }
  EXPECT_GE(holder, 4u);
  EXPECT_GE(own, 4u);
  EXPECT_GE(refused, 1u);
}

TEST_F(ShimTargets, NfsMountsRunWhereTheirServerIs) {
  expect_ran({"mount.nfs", "198.18.6.2:/export/vol1", "/mnt/vol1", "-o", "vers=4.1,proto=tcp"},
             "holder");
  expect_ran({"mount.nfs4", "198.18.4.20:/", "/mnt/vol2", "-s", "-o", "rw"}, "holder");
  expect_ran({"mount.nfs", "-V"}, "own");
}

TEST_F(ShimTargets, AMountOfAServerNoHolderDeclaresIsRefused) {
  // Fail closed: its sessions would die with the plugin pod.
  expect_refused({"mount.nfs", "198.18.7.1:/export", "/mnt/vol3"},
                 {"\"198.18.7.1\"", "NETNS_EXEC_TARGETS", "NETNS_EXEC_UNMATCHED=own-netns"});
  expect_refused({"mount.nfs4", "nfs.example:/", "/mnt/vol3"}, {"nfs.example"});
  expect_refused({"nvme", "connect", "-t", "tcp", "-n", "nqn.x", "-a", "198.18.9.9", "-s", "4420"},
                 {"\"198.18.9.9\""});
  // A name is never resolved to find a declared address.
  env["NETNS_EXEC_TARGETS"] = "gw-a=198.18.4.0/24,NFS.Example";
  expect_ran({"mount.nfs4", "nfs.example.:/", "/mnt/vol3"}, "holder");
  // The operator's explicit opt-out: run in the caller's namespace, with a warning.
  env["NETNS_EXEC_UNMATCHED"] = "own-netns";
  ::unlink(record.c_str());
  RunResult r = shim({"mount.nfs", "198.18.7.1:/export", "/mnt/vol3"});
  EXPECT_EQ(r.exit_code, kStandInStatus) << r.describe();
  ASSERT_FALSE(recorded().empty()) << r.describe();
  EXPECT_EQ(recorded()[0], ns_text(current_netns_id()));
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
}

TEST_F(ShimTargets, NfsUnmountsRunAsTheyAre) {
  // nfs-utils installs umount.nfs and umount.nfs4 as links to mount.nfs, so
  // a shim in mount.nfs's place is umount(8)'s helper too: it runs the real
  // one of that name, in the caller's namespace (an unmount names no server).
  expect_ran({"umount.nfs4", "/mnt/vol2", "-f", "-t", "nfs4"}, "own");
  expect_ran({"umount.nfs", "/mnt/vol1", "-t", "nfs"}, "own");
}

TEST_F(ShimTargets, AlreadyInTheHoldersNamespaceTheShimRunsInPlace) {
  // `netns-exec mount --type nfs --netns HOLDER` runs mount(8) in the
  // holder's namespace, and mount(8) runs the mount.nfs shim there (as
  // ceph-csi's `nsenter --net=HOLDER -- nvme connect` would the nvme shim):
  // the record proves it is the holder's namespace, and the real program
  // runs right there.
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"mount.nfs", "198.18.6.2:/export", "/mnt/x", "-o", "vers=4.2"},
        {"nvme", "connect", "-t", "tcp", "-n", "nqn.x", "-a", "198.18.4.10", "-s", "4420"}}) {
    ::unlink(record.c_str());
    std::vector<std::string> nested{NETNS_EXEC_BIN,
                                    "--net=" + holder_dir + "/gw-a.net.ns",
                                    "--",
                                    "/bin/sh",
                                    "-c",
                                    "exec \"$@\"",
                                    "sh"};
    nested.insert(nested.end(), argv.begin(), argv.end());
    RunOptions options;
    options.env = env;
    RunResult r = run_command(nested, options);
    EXPECT_EQ(r.exit_code, kStandInStatus) << r.describe();
    std::vector<std::string> rec = recorded();
    ASSERT_GE(rec.size(), 1u) << r.describe();
    EXPECT_EQ(rec[0], ns_text(ns->ns_id()));
  }
}

TEST_F(ShimTargets, WithoutTheDeclarationEverythingIsUntouched) {
  env.erase("NETNS_EXEC_TARGETS");
  expect_ran({"nvme", "connect", "-t", "tcp", "-n", "nqn.x", "-a", "198.18.4.10", "-s", "4420"},
             "own");
  expect_ran({"mount.nfs", "198.18.6.2:/export", "/mnt/x"}, "own");
}

TEST_F(ShimTargets, ADeclaredTargetWithoutItsHolderIsRefusedAndNothingRuns) {
  ASSERT_EQ(::unlink((holder_dir + "/gw-a.net.ns").c_str()), 0);
  env["NETNS_EXEC_WAIT_HOLDER"] = "200ms";
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"nvme", "connect", "-t", "tcp", "-n", "nqn.x", "-a", "198.18.4.10",
                                 "-s", "4420"},
        {"mount.nfs", "198.18.6.2:/export", "/mnt/x"}}) {
    ::unlink(record.c_str());
    RunResult r = shim(argv);
    EXPECT_EQ(r.exit_code, 125) << r.describe();
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(recorded().empty()) << "the real " << argv.front() << " ran";
    for (const std::string& needle :
         {std::string("\"gw-a\""), holder_dir + "/gw-a.net.ns", std::string("check: ")})
      EXPECT_NE(r.err.find(needle), std::string::npos) << "missing " << needle << " in " << r.err;
  }
  // A disconnect is not routed: the controller of a gone holder can still be removed.
  expect_ran({"nvme", "disconnect", "-d", "/dev/nvme0"}, "own");
}

TEST_F(ShimTargets, AConnectWhoseTargetsComeFromAFileIsRefused) {
  RunResult r = shim({"nvme", "connect-all", "-t", "tcp"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_TRUE(recorded().empty()) << "the real nvme ran";
  EXPECT_NE(r.err.find("discovery.conf"), std::string::npos) << r.err;
  expect_ran({"nvme", "connect-all", "--help"}, "own");
  env.erase("NETNS_EXEC_TARGETS");
  expect_ran({"nvme", "connect-all", "-t", "tcp"}, "own");  // nothing declared: nothing held
}

TEST_F(ShimTargets, ABadDeclarationIsRefusedNamingIt) {
  env["NETNS_EXEC_TARGETS"] = "gw-a=198.18.4.0/40";
  RunResult r = shim({"nvme", "connect", "-a", "198.18.4.10"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_TRUE(recorded().empty());
  EXPECT_NE(r.err.find("NETNS_EXEC_TARGETS"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("198.18.4.0/40"), std::string::npos) << r.err;
}

TEST_F(ShimTargets, ExplainSaysWhichHolderAndWhy) {
  RunOptions options;
  options.env = env;
  auto explain =
      run_command({NETNS_EXEC_BIN, "shim", "explain", "--json", "--", bin + "/nvme", "connect",
                   "-t", "tcp", "-n", "nqn.x", "--traddr=198.18.4.10", "-s", "4420", "-l", "1800"},
                  options);
  ASSERT_TRUE(explain.ok()) << explain.describe();
  auto doc = nlohmann::json::parse(explain.out);
  EXPECT_EQ(doc["cluster"], "gw-a");
  EXPECT_EQ(doc["held"], true);
  EXPECT_EQ(doc["target"]["named"], "198.18.4.10");
  EXPECT_EQ(doc["target"]["where"], "--traddr");
  EXPECT_EQ(doc["holder"], holder_dir + "/gw-a.net.ns");
  EXPECT_EQ(doc["real"]["path"], real + "/nvme");
  EXPECT_NE(doc["decision"].get<std::string>().find(ns_text(ns->ns_id())), std::string::npos)
      << explain.out;

  // An undeclared server: the shim refuses the mount, and explain says so.
  auto nfs = run_command(
      {NETNS_EXEC_BIN, "shim", "explain", "--", "mount", "-t", "nfs", "198.18.7.1:/e", "/mnt"},
      options);
  EXPECT_EQ(nfs.exit_code, 125) << nfs.describe();
  EXPECT_NE(nfs.out.find("refused (125)"), std::string::npos) << nfs.out;
  EXPECT_NE(nfs.out.find("no holder in NETNS_EXEC_TARGETS declares \"198.18.7.1\""),
            std::string::npos)
      << nfs.out;
}

TEST_F(ShimTargets, ExplainNamesTheHolderOfTheControllerADisconnectDeletes) {
  const std::string sys = tmp / "sys-class-nvme";
  ASSERT_EQ(::mkdir(sys.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((sys + "/nvme3").c_str(), 0755), 0);
  std::ofstream(sys + "/nvme3/address") << "traddr=198.18.4.10,trsvcid=4420,src_addr=198.18.4.1\n";
  RunOptions options;
  options.env = env;
  auto r = run_command({NETNS_EXEC_BIN, "shim", "explain", "--json", "--sys-class-nvme", sys, "--",
                        bin + "/nvme", "disconnect", "-d", "/dev/nvme3"},
                       options);
  ASSERT_TRUE(r.ok()) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["held"], false) << "a disconnect is not routed";
  EXPECT_EQ(doc["controller"]["traddr"], "198.18.4.10");
  EXPECT_EQ(doc["controller"]["holder"], "gw-a");
  auto unknown = run_command({NETNS_EXEC_BIN, "shim", "explain", "--sys-class-nvme", sys, "--",
                              bin + "/nvme", "disconnect", "--device=/dev/nvme9"},
                             options);
  ASSERT_TRUE(unknown.ok()) << unknown.describe();
  EXPECT_NE(unknown.out.find(sys + "/nvme9/address"), std::string::npos) << unknown.out;
}

}  // namespace
}  // namespace netns::test::exec
