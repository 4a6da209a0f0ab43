// Cancellation of map, unmap, mount and umount never leaves half a mapping:
// a cancel before the start runs nothing; a started command is let finish
// (Settings::cancel_grace), then stopped (SIGTERM, kill_grace, SIGKILL), and
// whatever a map or mount made is undone before the call returns. Real
// processes throughout: stand-in `rbd`, `mount` and `umount` programs that
// take their time and then "map" or "mount" by writing the sysfs and
// mountinfo files the Runner reads (Settings points it at them).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "netns/test/ceph_requests.hpp"
#include "netns/test/support.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/ceph/ceph.hpp"

namespace netns::ceph {
namespace {

using namespace std::chrono_literals;
using test::map_request;
using test::read_text;
using test::TempDir;
using test::write_script;
using ::testing::HasSubstr;
using ::testing::Not;

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// An eventfd: readable, for good, once fired.
struct CancelHandle {
  UniqueFd fd{::eventfd(0, EFD_CLOEXEC)};
  void fire() const {
    uint64_t one = 1;
    ASSERT_EQ(::write(fd.get(), &one, sizeof one), static_cast<ssize_t>(sizeof one));
  }
  [[nodiscard]] Cancellation cancellation() const { return Cancellation{fd.get()}; }
};

// A node with krbd (a stand-in /sys/bus/rbd) and ceph in /proc/filesystems,
// whose rbd, mount and umount log what they do to `log`.
struct Node {
  TempDir dir;
  Settings settings;
  std::string log = dir / "log";
  std::string sys = dir / "sys-bus-rbd";
  std::string device_dir = sys + "/devices/0";
  std::string target = dir / "mnt";

  Node() {
    settings.modprobe = "/bin/false";
    settings.sys_bus_rbd = sys;
    ::mkdir(sys.c_str(), 0755);
    ::mkdir((sys + "/devices").c_str(), 0755);
    settings.proc_filesystems = dir / "filesystems";
    std::ofstream(settings.proc_filesystems) << "nodev\tceph\n";
    settings.proc_mountinfo = dir / "mountinfo";
    std::ofstream(settings.proc_mountinfo)
        << "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n";
    settings.lock_dir = dir / "locks";
    settings.timeout = 20s;
    settings.cancel_grace = 10s;
    settings.kill_grace = 2s;
    settings.rbd = dir / "rbd";
    settings.mount = dir / "mount";
    settings.umount = dir / "umount";
    ::mkdir(target.c_str(), 0755);
    rbd(map_ok(), unmap_ok());
    mount_programs("sleep 1; " + mount_now());
  }

  // What a successful krbd map leaves in sysfs, and rbd's output.
  [[nodiscard]] std::string map_now() const {
    const std::string& d = device_dir;
    return "mkdir -p " + d + "; echo rbd > " + d + "/pool; echo csi-vol-1 > " + d +
           "/name; echo - > " + d + "/current_snap; : > " + d +
           "/pool_ns; echo '198.18.0.10:6789 "
           "name=csi-rbd-node rbd csi-vol-1 -' > " +
           d + "/config_info; echo map-done >> " + log + "; echo /dev/rbd0";
  }
  [[nodiscard]] std::string map_ok() const { return "sleep 1; " + map_now(); }
  [[nodiscard]] std::string unmap_ok() const { return "rm -rf " + device_dir; }
  [[nodiscard]] std::string mount_now() const {
    return "echo '90 22 0:50 / " + target + " rw - ceph 198.18.0.10:6789:/ rw,name=admin' >> " +
           settings.proc_mountinfo + "; echo mount-done >> " + log;
  }

  void rbd(const std::string& map_body, const std::string& unmap_body) const {
    write_script(settings.rbd,
                 "case \" $* \" in\n"
                 "*\" unmap \"*) echo \"unmap $2\" >> " +
                     log + "; " + unmap_body +
                     " ;;\n"
                     "*\" map \"*) echo map-start >> " +
                     log + "; " + map_body +
                     " ;;\n"
                     "esac");
  }
  void mount_programs(const std::string& mount_body) const {
    write_script(settings.mount, "echo mount-start >> " + log + "; " + mount_body);
    write_script(settings.umount, "echo \"umount $1\" >> " + log + "; grep -v ' " + target + " ' " +
                                      settings.proc_mountinfo + " > " + settings.proc_mountinfo +
                                      ".new; mv " + settings.proc_mountinfo + ".new " +
                                      settings.proc_mountinfo);
  }

  // Runs `op` on a thread, fires the cancel once `started` is in the log.
  template <typename Op>
  OperationResult cancel_after(const std::string& started, Op op) const {
    CancelHandle cancel;
    OperationResult r;
    std::thread t([&] { r = op(cancel.cancellation()); });
    bool seen =
        test::wait_until([&] { return read_text(log).find(started) != std::string::npos; }, 20s);
    cancel.fire();
    t.join();
    EXPECT_TRUE(seen) << started << " never showed in " << read_text(log);
    return r;
  }

  [[nodiscard]] bool mounted() const {
    return read_text(settings.proc_mountinfo).find(" " + target + " ") != std::string::npos;
  }
};

CephfsMountRequest mount_request(const std::string& target) {
  CephfsMountRequest m;
  m.monitors = {"198.18.0.10:6789"};
  m.target = target;
  m.credentials.id = "admin";
  m.credentials.keyfile = "/k";
  return m;
}

TEST(CephCancel, BeforeTheStartRunsNothing) {
  Node node;
  Runner runner(node.settings);
  CancelHandle cancel;
  cancel.fire();
  for (int op = 0; op < 4; ++op) {
    OperationResult r;
    switch (op) {
      case 0:
        r = runner.map(map_request(), Target{}, cancel.cancellation());
        break;
      case 1:
        r = runner.unmap(UnmapRequest{.device_or_spec = "/dev/rbd0", .unmap_options = ""}, Target{},
                         cancel.cancellation());
        break;
      case 2:
        r = runner.mount_cephfs(mount_request(node.target), Target{}, cancel.cancellation());
        break;
      case 3:
        r = runner.umount(UmountRequest{.target = node.target}, Target{}, cancel.cancellation());
        break;
    }
    EXPECT_EQ(r.failure, Failure::cancelled) << op;
    EXPECT_EQ(r.cancel, Cancel::not_started) << op;
    EXPECT_EQ(r.exit_code(), 125) << op << ": nothing ran";
    EXPECT_THAT(r.message, HasSubstr("nothing ran"));
  }
  EXPECT_EQ(read_text(node.log), "") << "no program may run";
}

TEST(CephCancel, ASlowMapThatSucceedsIsUndoneBeforeTheCallReturns) {
  Node node;
  Runner runner(node.settings);
  auto start = std::chrono::steady_clock::now();
  OperationResult r = node.cancel_after(
      "map-start", [&](const Cancellation& c) { return runner.map(map_request(), Target{}, c); });
  // rbd was not signalled: it finished its map (well within the 10 s
  // grace), and the call returned soon after, not at the grace's end.
  EXPECT_LT(std::chrono::steady_clock::now() - start, test::scaled(8s));
  EXPECT_EQ(r.failure, Failure::cancelled) << r.message;
  EXPECT_EQ(r.cancel, Cancel::undone) << r.message;
  EXPECT_EQ(r.exit_code(), 137);
  EXPECT_TRUE(r.process.outcome.success()) << r.process.outcome.describe();
  EXPECT_EQ(read_text(node.log), "map-start\nmap-done\nunmap /dev/rbd0\n");
  EXPECT_FALSE(exists(node.device_dir)) << "the mapping must be gone";
  EXPECT_THAT(r.message, HasSubstr("/dev/rbd0"));
  EXPECT_THAT(r.message, HasSubstr("was undone"));
  EXPECT_THAT(r.undo_argv, ::testing::ElementsAre(node.settings.rbd, "unmap", "/dev/rbd0",
                                                  "--device-type", "krbd", "--options", "noudev"));
  EXPECT_TRUE(r.device.empty()) << "a cancelled map hands out no device";
  // The node is as before: a later map works and maps again.
  OperationResult again = runner.map(map_request(), Target{});
  EXPECT_TRUE(again.ok()) << again.message;
  EXPECT_EQ(again.device, "/dev/rbd0");
  EXPECT_FALSE(again.already_done);
}

TEST(CephCancel, AMapThatFailsAfterTheCancelLeavesNothingAndUndoesNothing) {
  Node node;
  node.rbd(
      "sleep 1; echo 'rbd: map failed: (110) Connection timed out' >&2; "
      "exit 110",
      node.unmap_ok());
  Runner runner(node.settings);
  OperationResult r = node.cancel_after(
      "map-start", [&](const Cancellation& c) { return runner.map(map_request(), Target{}, c); });
  EXPECT_EQ(r.failure, Failure::cancelled) << r.message;
  EXPECT_EQ(r.cancel, Cancel::nothing_left) << r.message;
  EXPECT_EQ(r.exit_code(), 137);
  EXPECT_EQ(r.process.outcome, spawn::Outcome::exited(110));
  EXPECT_THAT(r.message, HasSubstr("nothing was left mapped"));
  EXPECT_TRUE(r.undo_argv.empty());
  EXPECT_EQ(read_text(node.log), "map-start\n") << "no unmap for a map that made nothing";
}

// A map that mapped the device in the kernel and then hangs past the grace
// (SIGTERM ignored) is killed at the hard bound; sysfs still shows the
// device it made, so it is unmapped all the same.
TEST(CephCancel, AMapKilledAtTheHardBoundAfterItsKernelStepIsUndoneFromSysfs) {
  Node node;
  node.settings.cancel_grace = 300ms;
  node.settings.kill_grace = 300ms;
  node.rbd("trap '' TERM; " + node.map_now() + " >/dev/null; exec sleep 100", node.unmap_ok());
  Runner runner(node.settings);
  OperationResult r = node.cancel_after(
      "map-done", [&](const Cancellation& c) { return runner.map(map_request(), Target{}, c); });
  EXPECT_EQ(r.process.outcome, spawn::Outcome::cancelled(SIGKILL)) << r.process.outcome.describe();
  EXPECT_EQ(r.cancel, Cancel::undone) << r.message;
  EXPECT_THAT(r.message, HasSubstr("stopped at the hard bound"));
  EXPECT_FALSE(exists(node.device_dir));
  EXPECT_THAT(read_text(node.log), HasSubstr("unmap /dev/rbd0\n"));
}

TEST(CephCancel, AnUndoThatFailsIsReportedWithWhatIsLeftAndWhatToRun) {
  Node node;
  node.rbd(node.map_ok(),
           "echo 'rbd: sysfs write failed' >&2; echo 'rbd: unmap failed: (16) "
           "Device or resource busy' >&2; exit 16");
  Runner runner(node.settings);
  OperationResult r = node.cancel_after(
      "map-start", [&](const Cancellation& c) { return runner.map(map_request(), Target{}, c); });
  EXPECT_EQ(r.cancel, Cancel::left_behind) << r.message;
  EXPECT_EQ(r.leftover, "/dev/rbd0");
  EXPECT_THAT(r.message, HasSubstr("/dev/rbd0 is still mapped"));
  EXPECT_THAT(r.message, HasSubstr("Device or resource busy"));
  EXPECT_THAT(r.message, HasSubstr("check: run"));
  EXPECT_TRUE(exists(node.device_dir));
}

TEST(CephCancel, AnUnmapRunsToCompletion) {
  Node node;
  ASSERT_EQ(std::system(("sh -c \"" + node.map_now() + "\" >/dev/null").c_str()), 0);
  node.rbd(node.map_ok(), "sleep 1; " + node.unmap_ok() + "; echo unmap-done >> " + node.log);
  Runner runner(node.settings);
  OperationResult r = node.cancel_after("unmap /dev/rbd0", [&](const Cancellation& c) {
    return runner.unmap(UnmapRequest{.device_or_spec = "/dev/rbd0", .unmap_options = ""}, Target{},
                        c);
  });
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.cancel, Cancel::completed);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_THAT(read_text(node.log), HasSubstr("unmap-done"));
  EXPECT_FALSE(exists(node.device_dir));
}

TEST(CephCancel, AnUnmapKilledAtTheHardBoundSaysItMayNotHaveFinished) {
  Node node;
  node.settings.cancel_grace = 200ms;
  node.settings.kill_grace = 200ms;
  node.rbd(node.map_ok(), "trap '' TERM; exec sleep 100");
  Runner runner(node.settings);
  OperationResult r = node.cancel_after("unmap /dev/rbd0", [&](const Cancellation& c) {
    return runner.unmap(UnmapRequest{.device_or_spec = "/dev/rbd0", .unmap_options = ""}, Target{},
                        c);
  });
  EXPECT_EQ(r.failure, Failure::cancelled);
  EXPECT_EQ(r.cancel, Cancel::left_behind);
  EXPECT_THAT(r.message, HasSubstr("may not have finished"));
}

TEST(CephCancel, ATimeoutIsACancelToo) {
  Node node;
  node.settings.timeout = 200ms;  // rbd takes 1 s: the timeout comes first
  Runner runner(node.settings);
  OperationResult r = runner.map(map_request(), Target{});
  EXPECT_EQ(r.failure, Failure::timed_out) << r.message;
  EXPECT_EQ(r.cancel, Cancel::undone) << r.message;
  EXPECT_EQ(r.exit_code(), 124);
  EXPECT_TRUE(r.process.outcome.success()) << "rbd was let finish its map";
  EXPECT_EQ(r.process.stop, spawn::StopRequest::timeout);
  EXPECT_FALSE(exists(node.device_dir));
  EXPECT_THAT(r.message, HasSubstr("timed out"));
  EXPECT_THAT(r.message, HasSubstr("reachable"));
}

// The timeout that stopped a map is spent: the undo has a bound of its own
// (the longest of the timeout, the cancel grace and 30 s), or a short
// timeout would kill the rbd unmap it has just made necessary.
TEST(CephCancel, AShortTimeoutDoesNotCutTheUndoShort) {
  Node node;
  node.settings.timeout = 100ms;
  node.settings.cancel_grace = 5s;
  node.rbd(node.map_ok(), "sleep 1; " + node.unmap_ok());  // the undo takes 1 s
  Runner runner(node.settings);
  OperationResult r = runner.map(map_request(), Target{});
  EXPECT_EQ(r.failure, Failure::timed_out) << r.message;
  EXPECT_EQ(r.cancel, Cancel::undone) << r.message;
  EXPECT_FALSE(exists(node.device_dir)) << "the undo was cut short";
  EXPECT_THAT(read_text(node.log), HasSubstr("map-done\nunmap /dev/rbd0\n"));
}

TEST(CephCancel, ASlowKernelMountIsUnmountedAndAnUmountCompletes) {
  Node node;
  Runner runner(node.settings);
  OperationResult r = node.cancel_after("mount-start", [&](const Cancellation& c) {
    return runner.mount_cephfs(mount_request(node.target), Target{}, c);
  });
  EXPECT_EQ(r.failure, Failure::cancelled) << r.message;
  EXPECT_EQ(r.cancel, Cancel::undone) << r.message;
  EXPECT_THAT(read_text(node.log), HasSubstr("mount-done\numount " + node.target + "\n"));
  EXPECT_FALSE(node.mounted());

  // A mount that fails after the cancel leaves nothing and runs no umount.
  node.mount_programs("sleep 1; echo 'mount error 110 = Connection timed out' >&2; exit 32");
  std::ofstream(node.log, std::ios::trunc).close();
  OperationResult failed = node.cancel_after("mount-start", [&](const Cancellation& c) {
    return runner.mount_cephfs(mount_request(node.target), Target{}, c);
  });
  EXPECT_EQ(failed.cancel, Cancel::nothing_left) << failed.message;
  EXPECT_EQ(read_text(node.log), "mount-start\n");

  // umount, cancelled while it runs, completes.
  node.mount_programs(node.mount_now());
  ASSERT_TRUE(runner.mount_cephfs(mount_request(node.target), Target{}).ok());
  ASSERT_TRUE(node.mounted());
  write_script(node.settings.umount, "echo \"umount $1\" >> " + node.log + "; sleep 1; grep -v ' " +
                                         node.target + " ' " + node.settings.proc_mountinfo +
                                         " > " + node.settings.proc_mountinfo + ".new; mv " +
                                         node.settings.proc_mountinfo + ".new " +
                                         node.settings.proc_mountinfo);
  OperationResult u = node.cancel_after("umount " + node.target, [&](const Cancellation& c) {
    return runner.umount(UmountRequest{.target = node.target}, Target{}, c);
  });
  EXPECT_TRUE(u.ok()) << u.message;
  EXPECT_EQ(u.cancel, Cancel::completed);
  EXPECT_FALSE(node.mounted());
}

}  // namespace
}  // namespace netns::ceph
