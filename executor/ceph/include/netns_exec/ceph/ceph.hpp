#pragma once
// The Ceph operations a CSI node plugin runs, built like ceph-csi builds
// them, run through the spawn engine inside an already-validated network
// namespace:
//   map      rbd --id ID -m MONS --keyfile=F map POOL[/NS]/IMAGE[@SNAP]
//              --device-type krbd --options noudev [--options USER]
//              [--read-only]
//            (noudev always, as ceph-csi: udev events do not cross network
//            namespaces, and a node without udevd never sends them; the
//            device node comes from devtmpfs either way)
//   unmap    rbd unmap DEVICE|SPEC --device-type krbd --options noudev
//              [--options USER]
//   mount    mount -t ceph MONS:PATH TARGET
//              -o name=ID,secretfile=F[,mds_namespace=FS][,...]
//   fuse     ceph-fuse TARGET -m MONS -n client.ID --keyfile=F -r PATH
//              -o nonempty[,...]
//   nfs      mount -t nfs SERVER:PATH TARGET [-o ...]
//   umount   umount TARGET
//   nvme connect  nvme connect -t tcp -n NQN -a ADDR -s PORT [-l SECONDS]
//              [--hostnqn H] [--dhchap-secret S] [--dhchap-ctrl-secret S]
//            (ceph-csi's nvmeof node plugin's call; not Ceph-specific: any
//            NVMe/TCP target. nvme-cli takes DH-CHAP secrets only on argv,
//            as ceph-csi passes them; messages and logs redact them)
//
// Secrets: a key given by value goes to the child's stdin and the command
// reads it from /dev/stdin (--keyfile=/dev/stdin, secretfile=/dev/stdin); it
// is never placed on argv. Every message this library produces passes
// through redact(); key files are named, never read.
//
// Per-volume serialization: map/unmap/mount/umount and nvme connect hold an
// flock per volume in Settings::lock_dir, whoever calls (two `netns-exec map`
// processes for one image, two threads of one plugin through the C ABI: each
// acquire is its own open file description, and flock locks those), so
// requests for the same volume run one at a time and different volumes in
// parallel. Under the lock
// map, kernel mounts and nvme connect first look whether the work is already
// done (the image mapped in /sys/bus/rbd/devices, the target already a ceph
// mount, a live or reconnecting controller of that subsystem NQN at that
// address in /sys/class/nvme): the second caller gets the first one's
// device, already_done set, and nothing runs twice.
//
// Cancellation (Cancellation::fd, and Settings::timeout, which is handled
// the same way): map, unmap, mount and umount are never cut off mid-way.
// Cancelled before the command starts (checked again once the volume lock
// is held): nothing runs. Cancelled or timed out after it started: the
// command is given Settings::cancel_grace to finish by itself, then SIGTERM,
// Settings::kill_grace, SIGKILL (the hard bound). Then, still under the
// volume lock, a map or mount that made its mapping or mount (it printed a
// device, or the image / target is now mapped / mounted) is undone (rbd
// unmap DEVICE, umount TARGET, without a cancel, bounded by the longest of
// the timeout, the cancel grace and 30 s) before the call returns
// cancelled or timed_out; an unmap or umount that finished keeps its own
// result. OperationResult::cancel says which of these happened.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns/nsfd.hpp"
#include "netns_exec/redact.hpp"
#include "netns_exec/spawn/spawn.hpp"

namespace netns::ceph {

// Where the command runs: a namespace descriptor the caller has validated
// (kept open by the caller for the duration of the call), or -1 for the
// caller's own namespace.
struct Target {
  int netns_fd = -1;
  // Whether netns_fd is the initial network namespace (or -1 and the caller
  // is in it). Informational: krbd's noudev is added everywhere (see map).
  bool initial_netns = false;
};

// How the Ceph client authenticates. Exactly one of keyfile / key.
struct Credentials {
  std::string id;                  // cephx user without "client." ("admin", "csi-rbd-node")
  std::string keyfile;             // a file holding the key: passed by name
  std::optional<std::string> key;  // the key itself: passed on stdin
};

struct Settings {
  std::chrono::nanoseconds timeout = std::chrono::minutes(2);
  std::chrono::nanoseconds kill_grace = std::chrono::seconds(5);
  // After a cancel or the timeout, how long a started command may still run
  // to finish its kernel step before SIGTERM (then kill_grace, SIGKILL).
  std::chrono::nanoseconds cancel_grace = std::chrono::seconds(30);
  // The programs, searched in PATH unless they contain '/'.
  std::string rbd = "rbd";
  std::string mount = "mount";
  std::string umount = "umount";
  std::string ceph_fuse = "ceph-fuse";
  std::string modprobe = "modprobe";
  std::string nvme = "nvme";
  // The environment of every command; nullopt: the caller's.
  std::optional<std::vector<std::string>> env;
  // Probed before krbd map / kernel mounts (tests point them elsewhere).
  std::string sys_bus_rbd = "/sys/bus/rbd";
  std::string proc_filesystems = "/proc/filesystems";
  // Where the mounts of this mount namespace are read (kernel mounts: is the
  // target already mounted?).
  std::string proc_mountinfo = "/proc/self/mountinfo";
  // One lock file per volume, shared by every process on the node that runs
  // Ceph operations (created 0700 if missing). Empty: no cross-process lock.
  std::string lock_dir = "/run/netns-exec/volumes";
  // The NVMe controllers (nvme connect: is that subsystem already connected
  // at that address?). Not scoped by network namespace: every controller of
  // the node is there, whoever connected it.
  std::string sys_class_nvme = "/sys/class/nvme";
};

struct MapRequest {
  std::string pool;
  std::string rados_namespace;  // "" for none
  std::string image;
  std::string snapshot;               // "" for none
  std::vector<std::string> monitors;  // "10.0.0.1:6789", joined with ','
  Credentials credentials;
  std::string map_options;  // krbd options, comma-separated, appended last
  bool read_only = false;
  // "pool[/ns]/image[@snap]"
  [[nodiscard]] std::string image_spec() const;
};

struct UnmapRequest {
  std::string device_or_spec;  // "/dev/rbd0" or an image spec
  std::string unmap_options;   // krbd options, comma-separated
};

struct CephfsMountRequest {
  std::vector<std::string> monitors;
  std::string root_path = "/";  // the CephFS subvolume path
  std::string target;           // the mount point (must exist)
  Credentials credentials;
  std::string fs_name;        // mds_namespace=, "" for the default file system
  std::string mount_options;  // comma-separated, appended (kernel) or to -o (fuse)
  std::string ceph_conf;      // fuse only: -c FILE ("" to omit)
};

struct NfsMountRequest {
  std::string server;  // host or address
  std::string export_path;
  std::string target;
  std::string mount_options;  // comma-separated, "" for none
};

struct NvmeConnectRequest {
  std::string transport = "tcp";
  std::string subsystem_nqn;  // -n
  std::string traddr;         // -a: the gateway's address
  uint16_t trsvcid = 4420;    // -s
  std::string ctrl_loss_tmo;  // -l SECONDS, "" for nvme-cli's default (ceph-csi: "1800")
  std::string host_nqn;       // --hostnqn, "" for the node's /etc/nvme/hostnqn
  std::optional<std::string> dhchap_secret;       // --dhchap-secret
  std::optional<std::string> dhchap_ctrl_secret;  // --dhchap-ctrl-secret
  // "nvme:NQN@ADDR:PORT": what the per-volume lock is taken on.
  [[nodiscard]] std::string volume_key() const;
};

struct UmountRequest {
  std::string target;
};

// A descriptor the caller owns that becomes readable to cancel (an eventfd,
// a pipe with a byte in it, a signalfd, a timerfd); never read, so one
// descriptor can cancel many operations. -1: none.
struct Cancellation {
  int fd = -1;
  // Readable now.
  [[nodiscard]] bool fired() const noexcept;
};

// How a cancelled or timed-out operation ended (Failure::cancelled or
// Failure::timed_out; none otherwise).
enum class Cancel : uint8_t {
  none,          // not cancelled, not timed out
  not_started,   // cancelled before the command started: nothing ran
  undone,        // map/mount: the mapping or mount it made was undone
  nothing_left,  // map/mount: it failed or was stopped, and left nothing
  left_behind,   // the undo failed, or an unmap/umount was killed at the hard
                 // bound: OperationResult::leftover is still there
  completed,     // unmap/umount: finished after the cancel; its result stands
};
const char* cancel_name(Cancel cancel) noexcept;

// Why an operation did not succeed, for callers that branch on it.
enum class Failure : uint8_t {
  none,
  kernel_module_missing,  // rbd / ceph / nfs kernel support absent on this node
  not_found,              // the program is not installed (127)
  not_executable,         // 126
  timed_out,              // 124
  spawn_failed,           // the executor failed (setns, ...): 125
  signalled,              // 128+N
  command_failed,         // the command's own non-zero exit code
  bad_output,             // exit 0, but the output is not what it must be
  cancelled,              // Cancellation::fd fired (OperationResult::cancel says how it
                          // ended)
};
const char* failure_name(Failure failure) noexcept;

struct OperationResult {
  Failure failure = Failure::none;
  // One line, redacted: what failed and why, with a hint where one helps.
  // Empty on success.
  std::string message;
  spawn::Result process;  // the command's outcome and its output, byte for byte
  std::string device;     // map: the device rbd printed ("/dev/rbd0")
  // unmap/umount: the device or mount point was already gone (success).
  // map/kernel mount: the image was already mapped (device is that mapping)
  // or the target already a ceph mount, e.g. by another process: nothing ran.
  bool already_done = false;
  // The argv that ran (redacted), for logs.
  std::vector<std::string> argv;
  // Cancelled or timed out: how it ended; the undo that ran (redacted argv,
  // empty when none) and what is still mapped or mounted (left_behind).
  Cancel cancel = Cancel::none;
  std::vector<std::string> undo_argv;
  std::string leftover;

  [[nodiscard]] bool ok() const noexcept { return failure == Failure::none; }
  // The exit code per SPEC for a CLI: 0, the command's own, 124..127, 128+N.
  // kernel_module_missing and bad_output are 125 unless the command itself
  // failed with its own code. cancelled is 137 (as a cancelled `run`; 125
  // when nothing started) and timed_out 124, whatever the command's own
  // status was.
  [[nodiscard]] int exit_code() const noexcept;
};

// Secrets out of free text (error messages, command output, argv): the one
// redaction, netns::exec::redact (netns_exec/redact.hpp), under this
// namespace's names.
using exec::redact;
using exec::redact_argv;

// The argv each operation runs, built without running it: the operations
// run these, and the unit tests check them.
std::vector<std::string> map_argv(const MapRequest& request, const Target& target,
                                  const Settings& settings = {});
std::vector<std::string> unmap_argv(const UnmapRequest& request, const Target& target,
                                    const Settings& settings = {});
std::vector<std::string> cephfs_mount_argv(const CephfsMountRequest& request,
                                           const Settings& settings = {});
std::vector<std::string> ceph_fuse_argv(const CephfsMountRequest& request,
                                        const Settings& settings = {});
std::vector<std::string> nfs_mount_argv(const NfsMountRequest& request,
                                        const Settings& settings = {});
std::vector<std::string> umount_argv(const UmountRequest& request, const Settings& settings = {});
std::vector<std::string> nvme_connect_argv(const NvmeConnectRequest& request,
                                           const Settings& settings = {});

// The controller (/dev/nvmeN) of an existing connection to exactly this
// subsystem NQN at this transport, address and port (and host NQN when the
// request names one) in Settings::sys_class_nvme, in a state that the kernel
// keeps or restores (live, connecting, resetting; not deleting or dead).
std::optional<std::string> connected_controller(const Settings& settings,
                                                const NvmeConnectRequest& request);

// One field of a controller's address attribute (/sys/class/nvme/nvmeN/address,
// "traddr=198.18.4.10,trsvcid=4420,src_addr=198.18.4.1"); "" when absent.
std::string nvme_address_field(std::string_view address, std::string_view name);

// Runs the operations with per-volume serialization (the volume lock, so
// separate Runners serialize as well as one shared by threads); it is
// thread-safe. Invalid requests
// (empty pool/image/target, both or neither of key/keyfile, a ',' inside a
// monitor or option value that would change the meaning) throw
// netns::Error(invalid_argument) before anything runs.
class Runner {
 public:
  explicit Runner(Settings settings = {});
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  [[nodiscard]] const Settings& settings() const noexcept;

  OperationResult map(const MapRequest& request, const Target& target,
                      const Cancellation& cancel = {});
  OperationResult unmap(const UnmapRequest& request, const Target& target,
                        const Cancellation& cancel = {});
  OperationResult mount_cephfs(const CephfsMountRequest& request, const Target& target,
                               const Cancellation& cancel = {});
  OperationResult mount_ceph_fuse(const CephfsMountRequest& request, const Target& target,
                                  const Cancellation& cancel = {});
  OperationResult mount_nfs(const NfsMountRequest& request, const Target& target,
                            const Cancellation& cancel = {});
  OperationResult umount(const UmountRequest& request, const Target& target,
                         const Cancellation& cancel = {});
  // device: the controller, /dev/nvmeN (read from sysfs after the connect).
  // Already connected (connected_controller): nothing runs, already_done.
  // Stopped after it started: a controller it made is disconnected
  // (nvme disconnect -d /dev/nvmeN).
  OperationResult nvme_connect(const NvmeConnectRequest& request, const Target& target,
                               const Cancellation& cancel = {});

  // The general form the operations above use, exposed for tests and for
  // callers with their own commands: runs `command` (its netns_fd is taken
  // from `target`) under the volume lock of `volume_key`.
  OperationResult run_serialized(std::string_view operation, std::string_view volume_key,
                                 spawn::Command command, const Target& target);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A process-wide Runner with default Settings.
Runner& default_runner();

}  // namespace netns::ceph
