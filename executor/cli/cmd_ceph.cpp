// netns-exec map | unmap | mount | umount | nvme-connect: thin wrappers over netns_ceph,
// run inside the namespace SOURCE names. A key is never taken on argv: give
// --keyfile FILE, or --key-stdin to read it from our stdin (it is handed to
// the command on its stdin).
//
// Neither --timeout nor SIGINT/SIGTERM/SIGHUP/SIGQUIT cuts a started
// command off: it gets --cancel-grace to finish, then SIGTERM, 5 s, SIGKILL,
// and a map or mount it made is undone before netns-exec exits 124 (timeout)
// or 137 (signal); netns_exec/ceph/ceph.hpp has the rules.
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <iterator>

#include "command.hpp"
#include "log.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns_exec/ceph/ceph.hpp"
#include "netns_exec/redact.hpp"
#include "output_json.hpp"
#include "signals.hpp"
#include "source_options.hpp"

namespace netns::cli {

namespace {

// krbd's noudev is for a non-initial namespace. /proc/1 is the initial
// namespace's init only with hostPID; without it we cannot tell, and
// assuming "not initial" (noudev) is the safe side: rbd then does not wait
// for udev events that would never arrive.
bool is_initial_netns(const exec::ResolvedNamespace& ns) {
  struct stat st {};
  if (::stat("/proc/1/ns/net", &st) != 0) return false;
  return NsId{st.st_dev, st.st_ino} == ns.id;
}

// Options every operation shares: SOURCE, timeout, JSON output.
class CephCommand : public Command {
 public:
  void setup(CLI::App& app) override {
    source_.add_to(app);
    app.add_option("--timeout", timeout_,
                   "Stop the command after this long (after --cancel-grace), "
                   "undo what it made; exit 124")
        ->capture_default_str();
    app.add_option("--cancel-grace", cancel_grace_,
                   "After the timeout or a signal, how long a started command "
                   "may still finish")
        ->capture_default_str();
    app.add_flag("--json", json_, "Print one JSON object with the outcome");
    add_options(app);
  }

  int run() override {
    try {
      return run_checked();
    } catch (const Error& e) {
      if (json_) print_json(error_json(e, {}, name()));
      throw;
    }
  }

 private:
  int run_checked() {
    exec::ResolvedNamespace ns = resolve_source(source_);
    if (ns.own_namespace)
      log_warn(ns.warning.empty() ? ns.describe() : ns.warning + " (" + ns_text(ns.id) + ")");
    set_log_field("step", name());
    ceph::Settings settings;
    settings.timeout = parse_duration(timeout_, "--timeout");
    settings.cancel_grace = parse_duration(cancel_grace_, "--cancel-grace");
    adjust(settings);
    // A signal meant for us cancels, the graceful way: blocked here, pending
    // on the signalfd, which is what the Runner watches (it never reads it).
    UniqueFd signals = block_forwarded_signals();
    ceph::Runner runner(settings);
    ceph::Target target;
    target.netns_fd = ns.own_namespace ? -1 : ns.fd.get();
    target.initial_netns = is_initial_netns(ns);
    ceph::OperationResult r = operate(runner, target, ceph::Cancellation{signals.get()});
    if (json_) {
      print_json({{"format", kJsonFormat},
                  {"operation", name()},
                  {"ok", r.ok()},
                  {"failure", ceph::failure_name(r.failure)},
                  {"message", exec::redact(r.message)},
                  {"device", r.device},
                  {"already_done", r.already_done},
                  {"cancel", ceph::cancel_name(r.cancel)},
                  {"undo_command", r.undo_argv},
                  {"leftover", r.leftover},
                  {"command", exec::redact_argv(r.argv)},
                  {"exit_code", r.exit_code()},
                  {"netns", ns},
                  {"outcome", r.process.outcome},
                  {"stdout", r.process.out.data},
                  {"stderr", r.process.err.data}});
    } else if (r.ok() && !r.device.empty()) {
      std::cout << r.device << '\n' << std::flush;
    }
    if (!r.ok()) log_error(r.message, {{"failure", ceph::failure_name(r.failure)}});
    return r.exit_code();
  }

 protected:
  virtual void add_options(CLI::App& app) = 0;
  // An operation's own settings (stand-in kernel trees).
  virtual void adjust(ceph::Settings& /*settings*/) const {}
  virtual ceph::OperationResult operate(ceph::Runner& runner, const ceph::Target& target,
                                        const ceph::Cancellation& cancel) = 0;

  // --id, --keyfile | --key-stdin
  void add_credentials(CLI::App& app) {
    app.add_option("--id", credentials_.id, "cephx user without \"client.\"")->required();
    auto* f = app.add_option("--keyfile", credentials_.keyfile, "File holding the key");
    auto* s = app.add_flag("--key-stdin", key_stdin_, "Read the key from stdin");
    f->excludes(s);
  }
  ceph::Credentials credentials() const {
    ceph::Credentials c = credentials_;
    if (key_stdin_) {
      std::string key = read_all(STDIN_FILENO, "stdin", 64 * 1024);
      while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
      c.key = std::move(key);
    } else if (c.keyfile.empty()) {
      throw Error(Errc::invalid_argument, "give --keyfile FILE or --key-stdin",
                  "a key is never taken on the command line");
    }
    return c;
  }

  SourceOptions source_;
  std::string timeout_ = "2m";
  std::string cancel_grace_ = "30s";
  bool json_ = false;
  ceph::Credentials credentials_;
  bool key_stdin_ = false;
};

class MapCommand final : public CephCommand {
 public:
  [[nodiscard]] const char* name() const override { return "map"; }
  [[nodiscard]] const char* description() const override {
    return "rbd map (krbd) inside the namespace; prints the device";
  }

 private:
  void add_options(CLI::App& app) override {
    app.add_option("--pool", request_.pool)->required();
    app.add_option("--rados-namespace", request_.rados_namespace);
    app.add_option("--image", request_.image)->required();
    app.add_option("--snap", request_.snapshot);
    app.add_option("--mon", request_.monitors, "Monitor address (repeat)")->required();
    app.add_option("--options", request_.map_options, "krbd map options, comma-separated");
    app.add_flag("--read-only", request_.read_only);
    add_credentials(app);
  }
  ceph::OperationResult operate(ceph::Runner& runner, const ceph::Target& target,
                                const ceph::Cancellation& cancel) override {
    request_.credentials = credentials();
    return runner.map(request_, target, cancel);
  }
  ceph::MapRequest request_;
};

class UnmapCommand final : public CephCommand {
 public:
  [[nodiscard]] const char* name() const override { return "unmap"; }
  [[nodiscard]] const char* description() const override {
    return "rbd unmap a device or image spec inside the namespace";
  }

 private:
  void add_options(CLI::App& app) override {
    app.add_option("device", request_.device_or_spec, "/dev/rbdN or pool/image")->required();
    app.add_option("--options", request_.unmap_options, "krbd unmap options, comma-separated");
  }
  ceph::OperationResult operate(ceph::Runner& runner, const ceph::Target& target,
                                const ceph::Cancellation& cancel) override {
    return runner.unmap(request_, target, cancel);
  }
  ceph::UnmapRequest request_;
};

class MountCommand final : public CephCommand {
 public:
  [[nodiscard]] const char* name() const override { return "mount"; }
  [[nodiscard]] const char* description() const override {
    return "mount CephFS (kernel or ceph-fuse) or NFS inside the namespace";
  }

 private:
  void add_options(CLI::App& app) override {
    app.add_option("--type", type_, "ceph (kernel), ceph-fuse or nfs")
        ->check(CLI::IsMember({"ceph", "ceph-fuse", "nfs"}))
        ->capture_default_str();
    app.add_option("target", target_, "Mount point (must exist)")->required();
    app.add_option("--mon", cephfs_.monitors, "Monitor address (repeat; ceph, ceph-fuse)");
    app.add_option("--path", path_, "CephFS root path or NFS export")->capture_default_str();
    app.add_option("--fs", cephfs_.fs_name, "CephFS file system name");
    app.add_option("--ceph-conf", cephfs_.ceph_conf, "ceph-fuse: -c FILE");
    app.add_option("--server", nfs_.server, "NFS server");
    app.add_option("-o,--mount-options", options_, "Mount options, comma-separated");
    app.add_option("--id", credentials_.id, "cephx user without \"client.\" (ceph, ceph-fuse)");
    auto* f = app.add_option("--keyfile", credentials_.keyfile, "File holding the key");
    auto* s = app.add_flag("--key-stdin", key_stdin_, "Read the key from stdin");
    f->excludes(s);
  }
  ceph::OperationResult operate(ceph::Runner& runner, const ceph::Target& target,
                                const ceph::Cancellation& cancel) override {
    if (type_ == "nfs") {
      nfs_.export_path = path_;
      nfs_.target = target_;
      nfs_.mount_options = options_;
      return runner.mount_nfs(nfs_, target, cancel);
    }
    cephfs_.root_path = path_;
    cephfs_.target = target_;
    cephfs_.mount_options = options_;
    cephfs_.credentials = credentials();
    return type_ == "ceph-fuse" ? runner.mount_ceph_fuse(cephfs_, target, cancel)
                                : runner.mount_cephfs(cephfs_, target, cancel);
  }
  std::string type_ = "ceph";
  std::string target_;
  std::string path_ = "/";
  std::string options_;
  ceph::CephfsMountRequest cephfs_;
  ceph::NfsMountRequest nfs_;
};

class UmountCommand final : public CephCommand {
 public:
  [[nodiscard]] const char* name() const override { return "umount"; }
  [[nodiscard]] const char* description() const override {
    return "umount a mount point (from inside the namespace, as ceph-csi "
           "would)";
  }

 private:
  void add_options(CLI::App& app) override {
    app.add_option("target", request_.target, "Mount point")->required();
  }
  ceph::OperationResult operate(ceph::Runner& runner, const ceph::Target& target,
                                const ceph::Cancellation& cancel) override {
    return runner.umount(request_, target, cancel);
  }
  ceph::UmountRequest request_;
};

// For manual debugging of the nvmeof driver's path: the connect ceph-csi's
// node plugin makes, under the per-volume lock, reusing a controller that
// is already there (the plugin itself goes through the `nvme` shim).
class NvmeConnectCommand final : public CephCommand {
 public:
  [[nodiscard]] const char* name() const override { return "nvme-connect"; }
  [[nodiscard]] const char* description() const override {
    return "nvme connect (NVMe/TCP) inside the namespace, once per subsystem and address; "
           "prints the controller";
  }

 private:
  void add_options(CLI::App& app) override {
    app.add_option("-n,--nqn", request_.subsystem_nqn, "Subsystem NQN")->required();
    app.add_option("-a,--traddr", request_.traddr, "The gateway's (target's) address")->required();
    app.add_option("-s,--trsvcid", request_.trsvcid, "Target port")->capture_default_str();
    app.add_option("-t,--transport", request_.transport, "Transport")->capture_default_str();
    app.add_option("-l,--ctrl-loss-tmo", request_.ctrl_loss_tmo,
                   "Seconds the kernel retries a lost controller (ceph-csi: 1800)");
    app.add_option("--hostnqn", request_.host_nqn, "Host NQN (default: the node's)");
    app.add_option("--dhchap-secret-file", secret_file_, "File holding the host's DH-CHAP secret");
    app.add_option("--dhchap-ctrl-secret-file", ctrl_secret_file_,
                   "File holding the controller's DH-CHAP secret (bi-directional)");
    app.add_option("--sys-class-nvme", sys_class_nvme_,
                   "Where the controllers are read (a stand-in tree)")
        ->capture_default_str();
  }
  void adjust(ceph::Settings& settings) const override {
    settings.sys_class_nvme = sys_class_nvme_;
  }
  static std::optional<std::string> secret_from(const std::string& file) {
    if (file.empty()) return std::nullopt;
    std::string secret = read_file(file, 4096);
    while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
    return secret;
  }
  ceph::OperationResult operate(ceph::Runner& runner, const ceph::Target& target,
                                const ceph::Cancellation& cancel) override {
    request_.dhchap_secret = secret_from(secret_file_);
    request_.dhchap_ctrl_secret = secret_from(ctrl_secret_file_);
    return runner.nvme_connect(request_, target, cancel);
  }
  ceph::NvmeConnectRequest request_;
  std::string secret_file_, ctrl_secret_file_;
  std::string sys_class_nvme_ = "/sys/class/nvme";
};

}  // namespace

std::unique_ptr<Command> make_map_command() { return std::make_unique<MapCommand>(); }
std::unique_ptr<Command> make_unmap_command() { return std::make_unique<UnmapCommand>(); }
std::unique_ptr<Command> make_mount_command() { return std::make_unique<MountCommand>(); }
std::unique_ptr<Command> make_umount_command() { return std::make_unique<UmountCommand>(); }
std::unique_ptr<Command> make_nvme_connect_command() {
  return std::make_unique<NvmeConnectCommand>();
}

}  // namespace netns::cli
