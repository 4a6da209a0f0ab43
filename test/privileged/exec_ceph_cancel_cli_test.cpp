// netns-exec map --timeout: a slow map that then succeeds is let finish and
// undone, and the exit status and --json say so. This host has no krbd, so
// netns-exec runs in a mount namespace of its own (made in the child the
// test forks) with a tmpfs over /sys/bus holding an rbd/ directory, and a
// stand-in `rbd` on PATH "maps" by writing /sys/bus/rbd/devices/0.
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "exec_fixture.hpp"

namespace netns::test::exec {
namespace {

struct ExecCephCancelCli : HeldExecFixture {
  void SetUp() override {
    HeldExecFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    bin = tmp.subdir("bin");
    log = tmp / "log";
    const std::string d = "/sys/bus/rbd/devices/0";
    std::ofstream(bin + "/rbd") << "#!/bin/sh\ncase \" $* \" in\n"
                                << "*\" unmap \"*) echo \"unmap $2\" >> " << log << "; rm -rf " << d
                                << " ;;\n"
                                << "*\" map \"*) echo map-start >> " << log
                                << "; sleep 1; mkdir -p " << d << "; echo p > " << d
                                << "/pool; echo i > " << d << "/name; echo - > " << d
                                << "/current_snap; : > " << d
                                << "/pool_ns; echo '198.18.0.1:6789 name=admin p i -' > " << d
                                << "/config_info; ls " << d << " >> " << log
                                << "; echo /dev/rbd0 ;;\nesac\n";
    ::chmod((bin + "/rbd").c_str(), 0755);
  }
  RunOptions options() const {
    RunOptions o;
    o.env = std::map<std::string, std::string>{{"PATH", bin + ":/usr/sbin:/usr/bin:/sbin:/bin"}};
    o.child_setup = [] {
      // In the forked child only: a krbd-looking /sys/bus for netns-exec.
      if (::unshare(CLONE_NEWNS) != 0 ||
          ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
          ::mount("cancel-test", "/sys/bus", "tmpfs", 0, nullptr) != 0 ||
          ::mkdir("/sys/bus/rbd", 0755) != 0 || ::mkdir("/sys/bus/rbd/devices", 0755) != 0)
        _exit(99);
    };
    return o;
  }
  std::string bin, log;
};

TEST_F(ExecCephCancelCli, TimeoutLetsAStartedMapFinishAndUndoesIt) {
  auto r = exec(
      {"map", "--json", "--netns", link, "--pool", "p", "--image", "i", "--mon", "198.18.0.1:6789",
       "--id", "admin", "--keyfile", "/dev/null", "--timeout", "200ms", "--cancel-grace", "20s"},
      options());
  ASSERT_NE(r.exit_code, 99) << "the test's mount namespace could not be set up";
  EXPECT_EQ(r.exit_code, 124) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["failure"], "timed_out");
  EXPECT_EQ(doc["cancel"], "undone") << r.out;
  EXPECT_EQ(doc["device"], "");
  EXPECT_EQ(doc["undo_command"][1], "unmap");
  EXPECT_EQ(doc["undo_command"][2], "/dev/rbd0");
  EXPECT_NE(doc["message"].get<std::string>().find("/dev/rbd0"), std::string::npos) << r.out;
  std::string text = read_file(log, 1 << 16);
  // rbd finished its map (the device's files were listed), then it was unmapped.
  EXPECT_NE(text.find("config_info"), std::string::npos) << text;
  EXPECT_NE(text.find("unmap /dev/rbd0"), std::string::npos) << text;
}

}  // namespace
}  // namespace netns::test::exec
