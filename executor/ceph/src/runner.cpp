// The operations: validate, probe kernel support, run serialized per
// volume, then read the result the way each command reports it.
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "cancel.hpp"
#include "classify.hpp"
#include "commands.hpp"
#include "lookup.hpp"
#include "netns/error.hpp"
#include "netns/nsfd.hpp"
#include "netns_exec/ceph/ceph.hpp"
#include "volume_lock.hpp"

namespace netns::ceph {

const char* failure_name(Failure failure) noexcept {
  switch (failure) {
    case Failure::none:
      return "none";
    case Failure::kernel_module_missing:
      return "kernel_module_missing";
    case Failure::not_found:
      return "not_found";
    case Failure::not_executable:
      return "not_executable";
    case Failure::timed_out:
      return "timed_out";
    case Failure::spawn_failed:
      return "spawn_failed";
    case Failure::signalled:
      return "signalled";
    case Failure::command_failed:
      return "command_failed";
    case Failure::bad_output:
      return "bad_output";
    case Failure::cancelled:
      return "cancelled";
  }
  return "unknown";
}

int OperationResult::exit_code() const noexcept {
  switch (failure) {
    case Failure::none:
      return 0;
    case Failure::cancelled:
      return cancel == Cancel::not_started ? 125 : 137;
    case Failure::timed_out:
      return 124;
    case Failure::kernel_module_missing:
    case Failure::bad_output: {
      const spawn::Outcome& o = process.outcome;
      if (o.kind == spawn::Outcome::Kind::exited && o.exit_code != 0) return o.exit_code;
      return 125;
    }
    default:
      return process.outcome.shell_exit_code();
  }
}

struct Runner::Impl {
  Settings settings;

  spawn::Command command(std::vector<std::string> argv, const Target& target,
                         std::optional<std::string> secret) const {
    spawn::Command c;
    c.argv = std::move(argv);
    c.env = settings.env;
    c.netns_fd = target.netns_fd;
    c.stdin_data = std::move(secret);
    c.timeout = settings.timeout;
    c.kill_grace = settings.kill_grace;
    return c;
  }

  // Whether the work is already done, checked under the volume lock; nullopt: run the command.
  using Lookup = std::function<std::optional<OperationResult>()>;

  // undo: a map, unmap, mount or umount, whose command is let finish after
  // a cancel or the timeout (see detail::settle); nullptr: any other
  // command, stopped the spawn engine's usual way.
  OperationResult run(std::string_view operation, std::string_view volume_key,
                      spawn::Command command, const Target& target, bool cross_process,
                      const Lookup& lookup, const Cancellation& cancel = {},
                      const detail::Undo* undo = nullptr);
};

namespace {

std::string trim_line(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
    s.remove_suffix(1);
  size_t nl = s.rfind('\n');
  if (nl != std::string_view::npos) s.remove_prefix(nl + 1);
  return std::string(s);
}

// A result for an operation that never ran a command.
OperationResult not_run(Failure failure, std::string message, std::vector<std::string> argv) {
  OperationResult r;
  r.failure = failure;
  r.message = redact(message);
  r.argv = redact_argv(argv);
  r.process.outcome = spawn::Outcome::exited(0);
  return r;
}

}  // namespace

Runner::Runner(Settings settings) : impl_(std::make_unique<Impl>()) {
  impl_->settings = std::move(settings);
}

Runner::~Runner() = default;

const Settings& Runner::settings() const noexcept { return impl_->settings; }

OperationResult Runner::run_serialized(std::string_view operation, std::string_view volume_key,
                                       spawn::Command command, const Target& target) {
  return impl_->run(operation, volume_key, std::move(command), target, true, {});
}

OperationResult Runner::Impl::run(std::string_view operation, std::string_view volume_key,
                                  spawn::Command command, const Target& target, bool cross_process,
                                  const Lookup& lookup, const Cancellation& cancel,
                                  const detail::Undo* undo) {
  command.netns_fd = target.netns_fd;
  command.cancel_fd = cancel.fd;
  // The timeout is a stop like a cancel: the same grace, the same undo.
  if (undo != nullptr) command.finish_grace = settings.cancel_grace;
  std::string what = std::string(operation) + " " + quote(volume_key);
  std::string program = command.argv.empty() ? std::string() : command.argv.front();
  if (cancel.fired()) return detail::not_started(what, command.argv);
  // The volume lock serializes threads and processes alike (each acquire is
  // an open file description of its own, and flock locks those): held while
  // we look and run, so a second `netns-exec map`, or a second thread of a
  // plugin calling the C ABI, sees the first one's mapping instead of making
  // another.
  {
    detail::VolumeLock lock;
    if (cross_process) lock = detail::VolumeLock::acquire(settings.lock_dir, volume_key);
    // The lock may have taken long: look again, so that a cancel that came
    // while we waited starts nothing.
    if (cancel.fired()) return detail::not_started(what, command.argv);
    if (lookup) {
      if (std::optional<OperationResult> done = lookup()) {
        done->argv = redact_argv(command.argv);
        done->process.outcome = spawn::Outcome::exited(0);
        done->already_done = true;
        return *done;
      }
    }
    OperationResult r;
    r.argv = redact_argv(command.argv);
    r.process = spawn::run(command);
    if (r.process.outcome == spawn::Outcome::spawn_failed(spawn::Stage::prepare, ECANCELED))
      return detail::not_started(what, command.argv);  // fired between the look and the start
    // The message is redacted (Ceph tools echo a key they cannot decode);
    // the command's own output is returned as it was: redaction is for
    // messages and logs, never for the command's data.
    detail::classify(r, what, program);
    if (undo != nullptr && r.process.stop != spawn::StopRequest::none)
      detail::settle(r, what, settings, target, *undo);
    return r;
  }
}

OperationResult Runner::map(const MapRequest& request, const Target& target,
                            const Cancellation& cancel) {
  const Settings& s = impl_->settings;
  std::vector<std::string> argv = map_argv(request, target, s);
  const std::string spec = request.image_spec();
  const std::string what = "map " + quote(spec);
  if (auto problem = detail::rbd_support_problem(s))
    return not_run(Failure::kernel_module_missing,
                   what + ": the rbd kernel module is not available on this node (" + *problem +
                       "); check: load it on the host (modprobe rbd; the plugin needs /lib/modules "
                       "mounted) or use a kernel with CONFIG_BLK_DEV_RBD",
                   argv);

  // Stopped: the device rbd printed, else whatever sysfs now shows for this
  // image (a map stopped after the kernel's add_single_major); the lookup
  // above ran under the same lock and found none before the command.
  const detail::Undo undo{
      [&](const OperationResult& stopped) -> std::optional<std::string> {
        std::string printed = trim_line(stopped.process.out.data);
        if (stopped.process.outcome.success() && printed.rfind("/dev/", 0) == 0) return printed;
        return detail::mapped_device(s, request);
      },
      [&](const std::string& device) {
        return unmap_argv(UnmapRequest{.device_or_spec = device, .unmap_options = ""}, target, s);
      },
      "mapped"};
  OperationResult r = impl_->run(
      "map", spec,
      impl_->command(std::move(argv), target, detail::stdin_secret(request.credentials)), target,
      true,
      [&]() -> std::optional<OperationResult> {
        std::optional<std::string> device = detail::mapped_device(s, request);
        if (!device) return std::nullopt;
        OperationResult done;
        // rbd prints the device; the lookup says it the same way.
        done.process.out.data = *device + "\n";
        return done;
      },
      cancel, &undo);
  if (r.ok()) {
    r.device = trim_line(r.process.out.data);
    if (r.device.rfind("/dev/", 0) != 0) {
      r.failure = Failure::bad_output;
      r.message = redact(what + ": rbd exited 0 but printed no device path: " +
                         quote(r.process.out.data.substr(0, 200)));
      r.device.clear();
    }
  } else if (r.cancel == Cancel::none && detail::says_rbd_module_missing(r.process.err.data)) {
    r.failure = Failure::kernel_module_missing;
    r.message =
        redact(what + ": the rbd kernel module is not available on this node: " +
               detail::output_excerpt(r.process) + "; check: load it on the host (modprobe rbd)");
  }
  return r;
}

OperationResult Runner::unmap(const UnmapRequest& request, const Target& target,
                              const Cancellation& cancel) {
  const Settings& s = impl_->settings;
  std::vector<std::string> argv = unmap_argv(request, target, s);
  // Without the module nothing can be mapped: there is nothing to undo.
  if (detail::rbd_support_problem(s)) {
    OperationResult r = not_run(Failure::none, {}, argv);
    r.already_done = true;
    return r;
  }
  if (cancel.fired()) return detail::not_started("unmap " + quote(request.device_or_spec), argv);
  const detail::Undo completes{};
  OperationResult r = impl_->run("unmap", request.device_or_spec,
                                 impl_->command(std::move(argv), target, std::nullopt), target,
                                 true, {}, cancel, &completes);
  // ceph-csi treats an image spec that is not mapped as unmapped.
  if (!r.ok() && r.failure == Failure::command_failed &&
      r.process.err.data.find("not a mapped image or snapshot") != std::string::npos) {
    r.failure = Failure::none;
    r.message.clear();
    r.already_done = true;
  }
  return r;
}

namespace {

OperationResult filesystem_missing(std::string_view what, std::string_view fs_type,
                                   const std::string& detail, std::vector<std::string> argv) {
  return not_run(Failure::kernel_module_missing,
                 std::string(what) + ": the " + std::string(fs_type) +
                     " kernel module is not available on this node (" + detail +
                     "); check: load it on the host (modprobe " + std::string(fs_type) + ")",
                 std::move(argv));
}

void reclassify_filesystem(OperationResult& r, std::string_view what, std::string_view fs_type) {
  if (r.ok() || !detail::says_filesystem_missing(r.process.err.data, fs_type)) return;
  r.failure = Failure::kernel_module_missing;
  r.message =
      redact(std::string(what) + ": the " + std::string(fs_type) +
             " kernel module is not available on this node: " + detail::output_excerpt(r.process) +
             "; check: load it on the host (modprobe " + std::string(fs_type) + ")");
}

// A stopped mount made what is now mounted at its target (kernel mounts: the
// lookup found none of this cluster there before the command).
detail::Undo mount_undo(const Settings& s, const std::string& mount_target,
                        std::function<bool()> mounted) {
  return detail::Undo{
      [mounted = std::move(mounted),
       mount_target](const OperationResult&) -> std::optional<std::string> {
        if (!mounted()) return std::nullopt;
        return mount_target;
      },
      [&s](const std::string& t) { return umount_argv(UmountRequest{.target = t}, s); }, "mounted"};
}

}  // namespace

OperationResult Runner::mount_cephfs(const CephfsMountRequest& request, const Target& target,
                                     const Cancellation& cancel) {
  const Settings& s = impl_->settings;
  std::vector<std::string> argv = cephfs_mount_argv(request, s);
  const std::string what = "mount " + quote(request.target);
  if (auto problem = detail::filesystem_support_problem(s, "ceph"))
    return filesystem_missing(what, "ceph", *problem, argv);
  const detail::Undo undo = mount_undo(s, request.target, [&] {
    return detail::mounted_as(s, request.target, "ceph", request.monitors);
  });
  OperationResult r = impl_->run(
      "mount", request.target,
      impl_->command(std::move(argv), target, detail::stdin_secret(request.credentials)), target,
      true,
      [&]() -> std::optional<OperationResult> {
        if (!detail::mounted_as(s, request.target, "ceph", request.monitors)) return std::nullopt;
        return OperationResult{};
      },
      cancel, &undo);
  if (r.cancel == Cancel::none) reclassify_filesystem(r, what, "ceph");
  return r;
}

OperationResult Runner::mount_ceph_fuse(const CephfsMountRequest& request, const Target& target,
                                        const Cancellation& cancel) {
  const Settings& s = impl_->settings;
  std::vector<std::string> argv = ceph_fuse_argv(request, s);
  const detail::Undo undo =
      mount_undo(s, request.target, [&] { return detail::mounted_at(s, request.target, "fuse"); });
  // ceph-fuse daemonizes: the engine returns when the launching process
  // exits, without waiting for the daemon that keeps the pipes open.
  return impl_->run(
      "mount", request.target,
      impl_->command(std::move(argv), target, detail::stdin_secret(request.credentials)), target,
      false, {}, cancel, &undo);
}

OperationResult Runner::mount_nfs(const NfsMountRequest& request, const Target& target,
                                  const Cancellation& cancel) {
  const Settings& s = impl_->settings;
  std::vector<std::string> argv = nfs_mount_argv(request, s);
  const std::string what = "mount " + quote(request.target);
  if (auto problem = detail::filesystem_support_problem(s, "nfs"))
    return filesystem_missing(what, "nfs", *problem, argv);
  const detail::Undo undo =
      mount_undo(s, request.target, [&] { return detail::mounted_at(s, request.target, "nfs"); });
  OperationResult r =
      impl_->run("mount", request.target, impl_->command(std::move(argv), target, std::nullopt),
                 target, false, {}, cancel, &undo);
  if (r.cancel == Cancel::none) reclassify_filesystem(r, what, "nfs");
  return r;
}

OperationResult Runner::umount(const UmountRequest& request, const Target& target,
                               const Cancellation& cancel) {
  std::vector<std::string> argv = umount_argv(request, impl_->settings);
  const detail::Undo completes{};
  OperationResult r =
      impl_->run("umount", request.target, impl_->command(std::move(argv), target, std::nullopt),
                 target, true, {}, cancel, &completes);
  // As ceph-csi: a mount point that is not mounted (or gone) is unmounted.
  const std::string& err = r.process.err.data;
  if (r.failure == Failure::command_failed &&
      (err.find("not mounted") != std::string::npos ||
       err.find("No such file or directory") != std::string::npos)) {
    r.failure = Failure::none;
    r.message.clear();
    r.already_done = true;
  }
  return r;
}

OperationResult Runner::nvme_connect(const NvmeConnectRequest& request, const Target& target,
                                     const Cancellation& cancel) {
  const Settings& s = impl_->settings;
  std::vector<std::string> argv = nvme_connect_argv(request, s);
  const std::string key = request.volume_key();
  // Stopped after it started: whatever controller of this subsystem at this
  // address sysfs now shows is the one it made (the lookup under the same
  // lock found none before the command).
  const detail::Undo undo{[&](const OperationResult&) { return connected_controller(s, request); },
                          [&](const std::string& device) {
                            return std::vector<std::string>{s.nvme, "disconnect", "-d", device};
                          },
                          "connected"};
  OperationResult r = impl_->run(
      "nvme connect", key, impl_->command(std::move(argv), target, std::nullopt), target, true,
      [&]() -> std::optional<OperationResult> {
        std::optional<std::string> device = connected_controller(s, request);
        if (!device) return std::nullopt;
        OperationResult done;
        done.device = *device;
        return done;
      },
      cancel, &undo);
  if (r.ok() && r.device.empty()) {
    if (std::optional<std::string> device = connected_controller(s, request)) {
      r.device = *device;
    } else {
      r.failure = Failure::bad_output;
      r.message =
          redact("nvme connect " + quote(key) + ": nvme exited 0 but " + quote(s.sys_class_nvme) +
                 " shows no live controller of " + quote(request.subsystem_nqn) + " at " +
                 request.traddr + ":" + std::to_string(request.trsvcid) +
                 "; check: `nvme list-subsys` and the kernel log (dmesg) on the node");
    }
  }
  return r;
}

Runner& default_runner() {
  static Runner runner;
  return runner;
}

}  // namespace netns::ceph
