// netns-exec nvme-connect: the connect runs inside the holder's namespace,
// once per subsystem NQN and address. The controllers are read from a
// stand-in /sys/class/nvme, which the stand-in `nvme` fills the way the
// kernel does after a connect (an nvmeN directory with state, transport,
// subsysnqn, address); the stand-in records each run and its namespace.
// The real initiator and target are the VM's (kernel.nvme.*).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "exec_fixture.hpp"

namespace netns::test::exec {
namespace {

struct NvmeConnect : HeldExecFixture {
  NvmeConnect() : HeldExecFixture("gw-a") {}
  void SetUp() override {
    HeldExecFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    bin = tmp.subdir("bin");
    sys = tmp.subdir("sys-class-nvme");
    record = tmp / "runs";
    gate = tmp / "gate";
    std::ofstream(bin + "/nvme")
        << "#!/bin/sh\n"
           "readlink /proc/$$/ns/net >> \"$RECORD\"\n"
           "if [ -p \"$GATE\" ]; then echo started > \"$GATE.started\"; read go < \"$GATE\"; fi\n"
           "if [ \"$1\" = disconnect ]; then echo \"disconnect $3\" >> \"$RECORD\"; rm -r "
           "\"$SYS/${3#/dev/}\"; exit 0; fi\n"
           "[ \"$1\" = connect ] || exit 3\n"
           "shift; while [ $# -gt 0 ]; do case \"$1\" in -n) nqn=$2;; -a) a=$2;; -s) s=$2;; esac; "
           "shift; done\n"
           "n=0; while [ -e \"$SYS/nvme$n\" ]; do n=$((n+1)); done\n"
           "d=\"$SYS/nvme$n\"; mkdir \"$d\"; echo tcp > \"$d/transport\"; echo \"$nqn\" > "
           "\"$d/subsysnqn\"\n"
           "echo \"traddr=$a,trsvcid=$s,src_addr=198.18.4.1\" > \"$d/address\"; echo live > "
           "\"$d/state\"\n"
           // HANG: a FIFO nobody writes, so the connect never returns after making its controller.
           "if [ -p \"$HANG\" ]; then read never < \"$HANG\"; fi\n";
    ASSERT_EQ(::chmod((bin + "/nvme").c_str(), 0755), 0);
    nqn = "nqn.2016-06.io.spdk:netns-test-" + std::to_string(::getpid());
  }

  [[nodiscard]] std::vector<std::string> connect_argv(const std::string& port = "4420") const {
    return {"/usr/bin/env",
            "PATH=" + bin + ":/usr/bin:/bin",
            "RECORD=" + record,
            "GATE=" + gate,
            "HANG=" + tmp / "hang",
            "SYS=" + sys,
            NETNS_EXEC_BIN,
            "nvme-connect",
            "--netns",
            holder_dir + "/gw-a.net.ns",
            "--json",
            "--sys-class-nvme",
            sys,
            "-n",
            nqn,
            "-a",
            "198.18.4.10",
            "-s",
            port,
            "-l",
            "1800"};
  }
  [[nodiscard]] nlohmann::json connect(const std::string& port = "4420") const {
    RunResult r = run_command(connect_argv(port));
    EXPECT_TRUE(r.ok()) << r.describe();
    return nlohmann::json::parse(r.out);
  }
  [[nodiscard]] std::vector<std::string> runs() const {
    std::ifstream in(record);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }

  std::string bin, sys, record, gate, nqn;
};

TEST_F(NvmeConnect, ConnectsOnceInTheHoldersNamespaceAndThenReuses) {
  auto first = connect();
  EXPECT_EQ(first["device"], "/dev/nvme0");
  EXPECT_EQ(first["already_done"], false);
  ASSERT_EQ(runs(), std::vector<std::string>{"net:[" + std::to_string(ns->ns_id().ino) + "]"})
      << "the connect ran in the holder's namespace, once";
  EXPECT_EQ(first["command"][0], "nvme");

  auto again = connect();
  EXPECT_EQ(again["device"], "/dev/nvme0");
  EXPECT_EQ(again["already_done"], true);
  EXPECT_EQ(runs().size(), 1u) << "a second controller was made";

  // The control: another port is another path, and a controller being
  // deleted is no connection to reuse.
  EXPECT_EQ(connect("4421")["device"], "/dev/nvme1");
  std::ofstream(sys + "/nvme0/state") << "deleting\n";
  auto after_delete = connect();
  EXPECT_EQ(after_delete["already_done"], false);
  EXPECT_EQ(after_delete["device"], "/dev/nvme2");
  EXPECT_EQ(runs().size(), 3u);
}

TEST_F(NvmeConnect, TwoAtOnceConnectOnce) {
  ASSERT_EQ(::mkfifo(gate.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((gate + ".started").c_str(), 0600), 0);
  Process a(connect_argv());
  {
    std::ifstream started(gate + ".started");  // opens when the stand-in writes
    std::string line;
    ASSERT_TRUE(std::getline(started, line));
  }
  Process b(connect_argv());
  std::ofstream(gate) << "go\n";
  for (Process* p : {&a, &b}) {
    std::optional<int> status = p->wait(30s);
    ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << p->err();
  }
  auto ja = nlohmann::json::parse(a.out()), jb = nlohmann::json::parse(b.out());
  EXPECT_EQ(ja["device"], "/dev/nvme0");
  EXPECT_EQ(jb["device"], "/dev/nvme0");
  EXPECT_EQ(jb["already_done"], true);
  EXPECT_EQ(runs().size(), 1u) << "nvme connect ran twice";
}

TEST_F(NvmeConnect, ATimedOutConnectDisconnectsTheControllerItMade) {
  ASSERT_EQ(::mkfifo((tmp / "hang").c_str(), 0600), 0);
  auto argv = connect_argv();
  argv.insert(argv.end(), {"--timeout", "1s", "--cancel-grace", "100ms"});
  RunResult r = run_command(argv);
  EXPECT_EQ(r.exit_code, 124) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["cancel"], "undone") << r.out;
  EXPECT_EQ(doc["undo_command"], (nlohmann::json{"nvme", "disconnect", "-d", "/dev/nvme0"}));
  const auto lines = runs();
  ASSERT_EQ(lines.size(), 3u) << "connect, then the undo's nvme (its namespace, its disconnect)";
  EXPECT_EQ(lines[1], lines[0]) << "the undo ran in the holder's namespace too";
  EXPECT_EQ(lines[2], "disconnect /dev/nvme0");
  EXPECT_NE(::access((sys + "/nvme0").c_str(), F_OK), 0) << "the controller is still there";
}

TEST_F(NvmeConnect, BadRequestsAreRefusedBeforeAnythingRuns) {
  auto argv = connect_argv();
  argv.back() = "soon";  // -l
  RunResult r = run_command(argv);
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_NE(r.err.find("controller loss timeout \"soon\""), std::string::npos) << r.err;
  argv = connect_argv();
  argv[argv.size() - 5] = "198.18.4.10,nqn=other";  // -a
  r = run_command(argv);
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_NE(r.err.find("NVMe target address"), std::string::npos) << r.err;
  EXPECT_TRUE(runs().empty());
}

}  // namespace
}  // namespace netns::test::exec
