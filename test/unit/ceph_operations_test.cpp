// Ceph operations without a cluster: the argv each operation runs, secret
// redaction, request validation, kernel-support detection (with stand-in
// sysfs/procfs paths and programs) and per-volume serialization.
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "netns/error.hpp"
#include "netns/test/ceph_requests.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/ceph/ceph.hpp"

namespace netns::ceph {
namespace {

using namespace std::chrono_literals;
using test::map_request;
using test::read_text;
using test::TempDir;
using test::write_script;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kKey = "AQBzb21lc2VjcmV0a2V5dmFsdWUxMjM0NTY3OA==";

// Golden lists in ceph-csi's shapes (internal/rbd/rbd_attach.go: createPath,
// appendKRbdDeviceTypeAndOptions, detachRBDImageOrDeviceSpec;
// internal/cephfs/mounter/kernel.go). These argv are what `netns-exec ...
// --json` reports as "command" (the CLI prints OperationResult::argv, built
// here). noudev is there in every namespace, initial or not, as in ceph-csi:
// test/kernel showed rbd waiting forever for udev on a node without udevd.
TEST(CephCommands, MapIsBuiltLikeCephCsiWithNoudevEverywhere) {
  MapRequest r = map_request();
  r.map_options = "alloc_size=65536";
  r.read_only = true;
  EXPECT_THAT(
      map_argv(r, Target{.netns_fd = 7, .initial_netns = false}),
      ElementsAre("rbd", "--id", "csi-rbd-node", "-m", "198.18.0.10:6789,198.18.0.11:6789",
                  "--keyfile=/tmp/keyfile-123", "map", "rbd/csi-vol-1", "--device-type", "krbd",
                  "--options", "noudev", "--options", "alloc_size=65536", "--read-only"));
  r.map_options.clear();
  r.read_only = false;
  EXPECT_THAT(map_argv(r, Target{.netns_fd = -1, .initial_netns = true}),
              ElementsAre("rbd", "--id", "csi-rbd-node", "-m", "198.18.0.10:6789,198.18.0.11:6789",
                          "--keyfile=/tmp/keyfile-123", "map", "rbd/csi-vol-1", "--device-type",
                          "krbd", "--options", "noudev"));
}

TEST(CephCommands, MapGoldenWithRadosNamespaceSnapshotAndEveryFlag) {
  MapRequest r = map_request();
  r.rados_namespace = "tenant-a";
  r.snapshot = "snap-1";
  r.map_options = "queue_depth=1024,lock_on_read";
  r.read_only = true;
  EXPECT_THAT(map_argv(r, Target{.netns_fd = 7}),
              ElementsAre("rbd", "--id", "csi-rbd-node", "-m", "198.18.0.10:6789,198.18.0.11:6789",
                          "--keyfile=/tmp/keyfile-123", "map", "rbd/tenant-a/csi-vol-1@snap-1",
                          "--device-type", "krbd", "--options", "noudev", "--options",
                          "queue_depth=1024,lock_on_read", "--read-only"));
}

TEST(CephCommands, UnmapGoldenBySpecAndDeviceWithOptions) {
  EXPECT_THAT(
      unmap_argv(UnmapRequest{.device_or_spec = "rbd/tenant-a/csi-vol-1", .unmap_options = "force"},
                 Target{.netns_fd = -1, .initial_netns = true}),
      ElementsAre("rbd", "unmap", "rbd/tenant-a/csi-vol-1", "--device-type", "krbd", "--options",
                  "noudev", "--options", "force"));
}

TEST(CephCommands, MountGoldenKernelCephfsAndNfs) {
  CephfsMountRequest m;
  m.monitors = {"198.18.0.10:6789", "198.18.0.11:6789"};
  m.root_path = "/volumes/csi/csi-vol-1/uuid";
  m.target = "/var/lib/kubelet/plugins/kubernetes.io/csi/cephfs.csi.ceph.com/x/globalmount";
  m.credentials.id = "csi-cephfs-node";
  m.credentials.keyfile = "/tmp/csi/keys/keyfile-1";
  m.fs_name = "myfs";
  m.mount_options = "ms_mode=secure,recover_session=clean";
  EXPECT_THAT(
      cephfs_mount_argv(m),
      ElementsAre(
          "mount", "-t", "ceph", "198.18.0.10:6789,198.18.0.11:6789:/volumes/csi/csi-vol-1/uuid",
          "/var/lib/kubelet/plugins/kubernetes.io/csi/cephfs.csi.ceph.com/x/globalmount", "-o",
          "name=csi-cephfs-node,secretfile=/tmp/csi/keys/keyfile-1,mds_namespace=myfs,"
          "ms_mode=secure,recover_session=clean,_netdev"));
  EXPECT_THAT(nfs_mount_argv(NfsMountRequest{.server = "198.18.0.20",
                                             .export_path = "/export/a",
                                             .target = "/mnt/n",
                                             .mount_options = ""}),
              ElementsAre("mount", "-t", "nfs", "198.18.0.20:/export/a", "/mnt/n"));
  // mount.nfs reads an IPv6 server only in brackets (and the nfs shim routes by it).
  EXPECT_THAT(nfs_mount_argv(NfsMountRequest{.server = "fd00:6::20",
                                             .export_path = "/export/a",
                                             .target = "/mnt/n",
                                             .mount_options = ""}),
              ElementsAre("mount", "-t", "nfs", "[fd00:6::20]:/export/a", "/mnt/n"));
  EXPECT_THAT(
      nfs_mount_argv(NfsMountRequest{
          .server = "[fd00:6::20]", .export_path = "/e", .target = "/mnt/n", .mount_options = ""}),
      ElementsAre("mount", "-t", "nfs", "[fd00:6::20]:/e", "/mnt/n"));
}

TEST(CephCommands, ImageSpecCarriesNamespaceAndSnapshot) {
  MapRequest r = map_request();
  r.rados_namespace = "tenant";
  r.snapshot = "snap1";
  EXPECT_EQ(r.image_spec(), "rbd/tenant/csi-vol-1@snap1");
}

TEST(CephCommands, KeyByValueGoesToStdinNeverArgv) {
  MapRequest r = map_request();
  r.credentials.keyfile.clear();
  r.credentials.key = kKey;
  auto argv = map_argv(r, Target{});
  for (const auto& arg : argv) EXPECT_THAT(arg, Not(HasSubstr(kKey)));
  EXPECT_THAT(argv, ::testing::Contains("--keyfile=/dev/stdin"));

  CephfsMountRequest m;
  m.monitors = {"198.18.0.10:6789"};
  m.root_path = "/volumes/csi/v1";
  m.target = "/mnt/x";
  m.credentials.id = "admin";
  m.credentials.key = kKey;
  m.fs_name = "myfs";
  EXPECT_THAT(cephfs_mount_argv(m),
              ElementsAre("mount", "-t", "ceph", "198.18.0.10:6789:/volumes/csi/v1", "/mnt/x", "-o",
                          "name=admin,secretfile=/dev/stdin,mds_namespace=myfs,_netdev"));
  m.ceph_conf = "/etc/ceph/ceph.conf";
  m.mount_options = "debug";
  EXPECT_THAT(ceph_fuse_argv(m), ElementsAre("ceph-fuse", "/mnt/x", "-m", "198.18.0.10:6789", "-c",
                                             "/etc/ceph/ceph.conf", "-n", "client.admin",
                                             "--keyfile=/dev/stdin", "-r", "/volumes/csi/v1", "-o",
                                             "nonempty,debug", "--client_mds_namespace=myfs"));
}

TEST(CephCommands, UnmapNfsAndUmount) {
  EXPECT_THAT(
      unmap_argv(UnmapRequest{.device_or_spec = "/dev/rbd3", .unmap_options = ""},
                 Target{.netns_fd = 5, .initial_netns = false}),
      ElementsAre("rbd", "unmap", "/dev/rbd3", "--device-type", "krbd", "--options", "noudev"));
  EXPECT_THAT(
      nfs_mount_argv(NfsMountRequest{.server = "198.18.0.20",
                                     .export_path = "/export/a",
                                     .target = "/mnt/n",
                                     .mount_options = "vers=4.1"}),
      ElementsAre("mount", "-t", "nfs", "198.18.0.20:/export/a", "/mnt/n", "-o", "vers=4.1"));
  EXPECT_THAT(umount_argv(UmountRequest{.target = "/mnt/n"}), ElementsAre("umount", "/mnt/n"));
}

TEST(CephCommands, InvalidRequestsAreRejectedBeforeAnythingRuns) {
  MapRequest r = map_request();
  r.pool = "-o";
  EXPECT_THROW(map_argv(r, Target{}), Error);
  r = map_request();
  r.image = "a/b";
  EXPECT_THROW(map_argv(r, Target{}), Error);
  r = map_request();
  r.credentials.key = kKey;  // both key and keyfile
  EXPECT_THROW(map_argv(r, Target{}), Error);
  r = map_request();
  r.credentials.keyfile.clear();  // neither
  EXPECT_THROW(map_argv(r, Target{}), Error);
  r = map_request();
  r.monitors.clear();
  EXPECT_THROW(map_argv(r, Target{}), Error);

  CephfsMountRequest m;
  m.monitors = {"198.18.0.10"};
  m.target = "/mnt/x";
  m.credentials.id = "admin,secret=x";  // would add a mount option
  m.credentials.keyfile = "/k";
  EXPECT_THROW(cephfs_mount_argv(m), Error);
  m.credentials.id = "admin";
  m.target = "relative";
  EXPECT_THROW(cephfs_mount_argv(m), Error);
  EXPECT_THROW(umount_argv(UmountRequest{.target = ""}), Error);
}

// netns::ceph's names are the one redaction (its cases are in
// exec_redact_test.cpp); this checks the ceph code sees that one.
TEST(CephRedact, IsTheExecutorsRedaction) {
  EXPECT_EQ(redact("auth: failed to decode key 'AQBabc==\n'"),
            netns::exec::redact("auth: failed to decode key 'AQBabc==\n'"));
  EXPECT_EQ(redact("userKey=AQB,access_key=zzz"), "userKey=<redacted>,access_key=<redacted>");
  EXPECT_THAT(redact_argv({"rbd", "--key", "AQBabc==", "-o", "secret=s3,ro"}),
              ElementsAre("rbd", "--key", "<redacted>", "-o", "secret=<redacted>,ro"));
}

// A Runner whose kernel probes and programs are stand-ins in a temp dir.
struct Fixture {
  TempDir dir;
  Settings settings;
  Fixture() {
    settings.modprobe = dir / "modprobe";
    write_script(
        settings.modprobe,
        "echo \"modprobe: FATAL: Module $1 not found in directory /lib/modules/test\" >&2; exit 1");
    settings.sys_bus_rbd = dir / "no-sys-bus-rbd";
    settings.proc_filesystems = dir / "filesystems";
    std::ofstream(settings.proc_filesystems) << "nodev\tsysfs\nnodev\ttmpfs\n\text4\n";
    settings.timeout = 10s;
    settings.lock_dir = dir / "locks";
    settings.proc_mountinfo = dir / "mountinfo";
    std::ofstream(settings.proc_mountinfo)
        << "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n";
  }
};

TEST(CephRunner, MapFailsFastWhenTheRbdModuleIsMissing) {
  Fixture f;
  f.settings.rbd = f.dir / "rbd";
  std::string marker = f.dir / "rbd-ran";
  write_script(f.settings.rbd, "touch " + marker + "; sleep 100");
  Runner runner(f.settings);
  auto start = std::chrono::steady_clock::now();
  OperationResult r = runner.map(map_request(), Target{});
  EXPECT_LT(std::chrono::steady_clock::now() - start, test::scaled(5s));
  EXPECT_EQ(r.failure, Failure::kernel_module_missing) << r.message;
  EXPECT_THAT(r.message, HasSubstr("the rbd kernel module is not available on this node"));
  EXPECT_THAT(r.message, HasSubstr("Module rbd not found"));
  EXPECT_EQ(r.exit_code(), 125);
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "rbd must not run without the module";
}

TEST(CephRunner, MapReadsTheDeviceAndNeverShowsTheKey) {
  Fixture f;
  ::mkdir(f.settings.sys_bus_rbd.c_str(), 0755);
  f.settings.rbd = f.dir / "rbd";
  std::string args = f.dir / "args";
  std::string input = f.dir / "stdin";
  write_script(f.settings.rbd, "echo \"$@\" > " + args + "; cat > " + input + "; echo /dev/rbd7");
  Runner runner(f.settings);
  MapRequest req = map_request();
  req.credentials.keyfile.clear();
  req.credentials.key = kKey;
  OperationResult r = runner.map(req, Target{});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.device, "/dev/rbd7");
  EXPECT_EQ(read_text(input), kKey);
  EXPECT_THAT(read_text(args), Not(HasSubstr(kKey)));
}

TEST(CephRunner, FailureMessagesAreRedactedAndClassified) {
  Fixture f;
  ::mkdir(f.settings.sys_bus_rbd.c_str(), 0755);
  f.settings.rbd = f.dir / "rbd";
  write_script(f.settings.rbd, std::string("echo \"auth: failed to decode key '") + kKey +
                                   "'\" >&2; echo 'rbd: map failed: secret=" + kKey +
                                   "' >&2; exit 22");
  Runner runner(f.settings);
  OperationResult r = runner.map(map_request(), Target{});
  EXPECT_EQ(r.failure, Failure::command_failed);
  EXPECT_EQ(r.exit_code(), 22);
  EXPECT_THAT(r.message, HasSubstr("map \"rbd/csi-vol-1\""));
  EXPECT_THAT(r.message, HasSubstr("exited with code 22"));
  EXPECT_THAT(r.message, HasSubstr("rbd: map failed"));
  EXPECT_THAT(r.message, Not(HasSubstr(kKey)));
  // The command's own bytes come back untouched; only the message is redacted.
  EXPECT_THAT(r.process.err.data, HasSubstr(std::string("failed to decode key '") + kKey));

  write_script(f.settings.rbd,
               "echo 'rbd: failed to load rbd kernel module (1)' >&2; echo 'rbd: map failed: (2) "
               "No such file or directory' >&2; exit 2");
  OperationResult m = runner.map(map_request(), Target{});
  EXPECT_EQ(m.failure, Failure::kernel_module_missing) << m.message;
  EXPECT_EQ(m.exit_code(), 2);

  f.settings.rbd = f.dir / "missing-rbd";
  Runner missing(f.settings);
  OperationResult nf = missing.map(map_request(), Target{});
  EXPECT_EQ(nf.failure, Failure::not_found);
  EXPECT_EQ(nf.exit_code(), 127);
  EXPECT_THAT(nf.message, HasSubstr("installed"));
}

TEST(CephRunner, TimeoutIsClassified) {
  Fixture f;
  ::mkdir(f.settings.sys_bus_rbd.c_str(), 0755);
  f.settings.rbd = f.dir / "rbd";
  write_script(f.settings.rbd, "exec sleep 100");
  f.settings.timeout = 200ms;
  f.settings.kill_grace = 200ms;
  f.settings.cancel_grace = 200ms;  // a stopped map is given this long to finish
  Runner runner(f.settings);
  OperationResult r = runner.map(map_request(), Target{});
  EXPECT_EQ(r.failure, Failure::timed_out);
  EXPECT_EQ(r.exit_code(), 124);
  EXPECT_THAT(r.message, HasSubstr("reachable"));
}

TEST(CephRunner, KernelMountsFailFastWithoutTheFilesystem) {
  Fixture f;
  f.settings.mount = f.dir / "mount";
  std::string marker = f.dir / "mount-ran";
  write_script(f.settings.mount, "touch " + marker);
  Runner runner(f.settings);
  CephfsMountRequest m;
  m.monitors = {"198.18.0.10:6789"};
  m.target = f.dir.path();
  m.credentials.id = "admin";
  m.credentials.keyfile = "/k";
  OperationResult r = runner.mount_cephfs(m, Target{});
  EXPECT_EQ(r.failure, Failure::kernel_module_missing) << r.message;
  EXPECT_THAT(r.message, HasSubstr("ceph kernel module is not available"));
  OperationResult n = runner.mount_nfs(NfsMountRequest{.server = "198.18.0.20",
                                                       .export_path = "/e",
                                                       .target = f.dir.path(),
                                                       .mount_options = ""},
                                       Target{});
  EXPECT_EQ(n.failure, Failure::kernel_module_missing) << n.message;
  EXPECT_NE(::access(marker.c_str(), F_OK), 0);

  // Listed: the mount runs.
  std::ofstream(f.settings.proc_filesystems) << "nodev\tceph\n";
  OperationResult ok = Runner(f.settings).mount_cephfs(m, Target{});
  EXPECT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(::access(marker.c_str(), F_OK), 0);
}

// The system call a thread of this process is blocked in (-1: running or
// gone): /proc/self/task/TID/syscall starts with its number.
long blocked_in(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/syscall");
  std::string first;
  if (!(in >> first) || first == "running") return -1;
  try {
    return std::stol(first);
  } catch (...) {
    return -1;
  }
}

// Two Runners stand for two `netns-exec map` processes (each has its own
// in-process flights; flock locks of separate open files conflict even in one
// process). The fake rbd maps by creating the sysfs entry the kernel would.
TEST(CephRunner, IdenticalMapsFromTwoProcessesGiveOneMappingAndOneDevice) {
  Fixture f;
  ::mkdir(f.settings.sys_bus_rbd.c_str(), 0755);
  f.settings.rbd = f.dir / "rbd";
  std::string ran = f.dir / "ran";
  std::string dev = f.settings.sys_bus_rbd + "/devices/3";
  // The first rbd holds (reads a FIFO) until the second map waits for the
  // volume's lock or, were there no lock, has run rbd itself.
  std::string fifo = f.dir / "release";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  write_script(f.settings.rbd, "if [ -e " + ran + " ]; then echo run >> " + ran +
                                   "; else echo run >> " + ran + "; read x < " + fifo +
                                   "; fi; mkdir -p " + dev + "; echo rbd > " + dev +
                                   "/pool; echo csi-vol-1 > " + dev + "/name; echo - > " + dev +
                                   "/current_snap; : > " + dev +
                                   "/pool_ns; echo '198.18.0.10:6789,198.18.0.11:6789 "
                                   "name=csi-rbd-node,key=client.csi-rbd-node rbd csi-vol-1 -' > " +
                                   dev + "/config_info; echo /dev/rbd3");
  Runner first(f.settings);
  Runner second(f.settings);
  OperationResult a, b;
  std::thread t1([&] { a = first.map(map_request(), Target{}); });
  ASSERT_TRUE(test::wait_until([&] { return ::access(ran.c_str(), F_OK) == 0; }, 10s));
  std::atomic<pid_t> t2_tid{0};
  std::thread t2([&] {
    t2_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    b = second.map(map_request(), Target{});
  });
  EXPECT_TRUE(test::wait_until(
      [&] {
        return (t2_tid != 0 && blocked_in(t2_tid) == SYS_flock) || read_text(ran) == "run\nrun\n";
      },
      10s))
      << "the second map neither waited for the lock nor ran rbd";
  {
    std::ofstream out(fifo);
    out << "go\n";
  }
  t1.join();
  t2.join();
  ASSERT_TRUE(a.ok()) << a.message;
  ASSERT_TRUE(b.ok()) << b.message;
  EXPECT_EQ(a.device, "/dev/rbd3");
  EXPECT_EQ(b.device, "/dev/rbd3");
  EXPECT_FALSE(a.already_done);
  EXPECT_TRUE(b.already_done);
  EXPECT_EQ(read_text(ran), "run\n") << "rbd map must run once";
  // Another image is not taken for this one.
  MapRequest other = map_request();
  other.image = "csi-vol-2";
  OperationResult c = second.map(other, Target{});
  EXPECT_FALSE(c.already_done);
  EXPECT_EQ(read_text(ran), "run\nrun\n");
  // Nor the same pool and image of another cluster (one holder per cluster on
  // a node; the same names exist in each): its monitors are not ours.
  MapRequest elsewhere = map_request();
  elsewhere.monitors = {"v1:198.18.16.1:6789"};
  OperationResult d = second.map(elsewhere, Target{});
  EXPECT_FALSE(d.already_done);
  EXPECT_EQ(read_text(ran), "run\nrun\nrun\n");
  // The same cluster named by its v2 address list is ours.
  MapRequest v2 = map_request();
  v2.monitors = {"[v2:198.18.0.11:3300,v1:198.18.0.11:6789]"};
  OperationResult e = second.map(v2, Target{});
  EXPECT_TRUE(e.already_done);
  EXPECT_EQ(e.device, "/dev/rbd3");
  EXPECT_EQ(read_text(ran), "run\nrun\nrun\n");
}

TEST(CephRunner, KernelMountOfATargetAlreadyMountedAsCephRunsNothing) {
  Fixture f;
  std::ofstream(f.settings.proc_filesystems) << "nodev\tceph\n";
  f.settings.mount = f.dir / "mount";
  std::string ran = f.dir / "ran";
  write_script(f.settings.mount, "echo run >> " + ran);
  std::ofstream(f.settings.proc_mountinfo, std::ios::app)
      << "90 22 0:50 / /mnt/vol\\040a rw,relatime shared:40 - ceph 198.18.0.10:6789:/ "
         "rw,name=admin\n";
  CephfsMountRequest m;
  m.monitors = {"198.18.0.10:6789"};
  m.target = "/mnt/vol a";
  m.credentials.id = "admin";
  m.credentials.keyfile = "/k";
  OperationResult r = Runner(f.settings).mount_cephfs(m, Target{});
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(r.already_done);
  EXPECT_NE(::access(ran.c_str(), F_OK), 0);
  m.target = "/mnt/other";
  OperationResult o = Runner(f.settings).mount_cephfs(m, Target{});
  EXPECT_TRUE(o.ok()) << o.message;
  EXPECT_FALSE(o.already_done);
  EXPECT_EQ(read_text(ran), "run\n");
  // Another cluster's CephFS on the target is not this request's mount.
  m.target = "/mnt/vol a";
  m.monitors = {"198.18.16.1:6789"};
  OperationResult x = Runner(f.settings).mount_cephfs(m, Target{});
  EXPECT_FALSE(x.already_done);
  EXPECT_EQ(read_text(ran), "run\nrun\n");
}

TEST(CephRunner, UmountAndUnmapOfSomethingAbsentSucceed) {
  Fixture f;
  Runner runner(f.settings);
  OperationResult u = runner.umount(UmountRequest{.target = f.dir.path()}, Target{});
  EXPECT_TRUE(u.ok()) << u.message;
  EXPECT_TRUE(u.already_done);
  OperationResult m =
      runner.unmap(UnmapRequest{.device_or_spec = "rbd/img", .unmap_options = ""}, Target{});
  EXPECT_TRUE(m.ok()) << m.message;
  EXPECT_TRUE(m.already_done);
}

// A command that logs start-TAG and end-TAG, with nothing in between.
spawn::Command append_start_end(const std::string& log, const std::string& tag) {
  spawn::Command c;
  c.argv = {"/bin/sh", "-c",
            "echo start-" + tag + " >> " + log + "; echo end-" + tag + " >> " + log};
  return c;
}

std::vector<std::string> lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The second request starts only once the first one's command is running,
// however slow the machine is.
void wait_for_line(const std::string& path, const std::string& line) {
  ASSERT_TRUE(test::wait_until(
      [&] {
        auto all = lines(path);
        return std::find(all.begin(), all.end(), line) != all.end();
      },
      10s))
      << line;
}

// A command that logs start-TAG, holds until a line arrives on `fifo`, then
// logs end-TAG: the test decides when it ends, by an event, not a sleep.
spawn::Command append_and_hold(const std::string& log, const std::string& tag,
                               const std::string& fifo) {
  spawn::Command c;
  c.argv = {"/bin/sh", "-c",
            "echo start-" + tag + " >> " + log + "; read x < " + fifo + "; echo end-" + tag +
                " >> " + log};
  return c;
}

void release(const std::string& fifo) {
  std::ofstream out(fifo);
  out << "go\n";
}

bool has_line(const std::string& path, const std::string& line) {
  auto all = lines(path);
  return std::find(all.begin(), all.end(), line) != all.end();
}

// Settings whose volume locks are in `dir`.
Settings locks_in(const TempDir& dir) {
  Settings s;
  s.lock_dir = dir / "locks";
  return s;
}

// One Runner shared by two threads: the volume lock serializes them as it
// does two processes.
TEST(CephVolumeLock, RequestsForOneVolumeRunOneAtATime) {
  TempDir dir;
  std::string log = dir / "log";
  std::string fifo = dir / "release-a";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Runner runner(locks_in(dir));
  std::atomic<pid_t> t2_tid{0};
  std::thread t1([&] {
    runner.run_serialized("map", "rbd/vol-1", append_and_hold(log, "a", fifo), Target{});
  });
  wait_for_line(log, "start-a");
  std::thread t2([&] {
    t2_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    runner.run_serialized("unmap", "rbd/vol-1", append_start_end(log, "b"), Target{});
  });
  // a ends only once b is either waiting for the volume (in flock) or, if
  // the requests are not serialized, has started: both are events.
  EXPECT_TRUE(test::wait_until(
      [&] { return (t2_tid != 0 && blocked_in(t2_tid) == SYS_flock) || has_line(log, "start-b"); },
      10s))
      << "the second request neither waited nor started";
  release(fifo);
  t1.join();
  t2.join();
  EXPECT_THAT(lines(log), ElementsAre("start-a", "end-a", "start-b", "end-b"));
}

TEST(CephVolumeLock, DifferentVolumesRunInParallel) {
  TempDir dir;
  std::string log = dir / "log";
  std::string fifo = dir / "release-a";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Runner runner(locks_in(dir));
  std::thread t1([&] {
    runner.run_serialized("map", "rbd/vol-1", append_and_hold(log, "a", fifo), Target{});
  });
  wait_for_line(log, "start-a");
  std::thread t2(
      [&] { runner.run_serialized("map", "rbd/vol-2", append_start_end(log, "b"), Target{}); });
  // a holds until b has finished: only a second volume running in parallel
  // gets there (serialized, b would wait for a forever and this wait fail).
  EXPECT_TRUE(test::wait_until([&] { return has_line(log, "end-b"); }, 10s))
      << "vol-2 waited for vol-1's command";
  release(fifo);
  t1.join();
  t2.join();
  EXPECT_THAT(lines(log), ElementsAre("start-a", "start-b", "end-b", "end-a"));
}

}  // namespace
}  // namespace netns::ceph
