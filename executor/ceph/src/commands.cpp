// The commands, built as ceph-csi builds them (internal/rbd/rbd_attach.go,
// internal/cephfs/mounter/{kernel,fuse}.go), with one difference: a key
// given by value is read from stdin, never put on argv.
#include "commands.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "netns/error.hpp"
#include "netns/join.hpp"

namespace netns::ceph {

namespace detail {

namespace {

[[noreturn]] void invalid(std::string_view field, std::string_view value, std::string_view rule) {
  throw Error(Errc::invalid_argument,
              std::string(field) + " " + quote(value) + ": " + std::string(rule));
}

void require_nonempty(std::string_view field, std::string_view value) {
  if (value.empty()) throw Error(Errc::invalid_argument, std::string(field) + " is empty");
}

void require_no_control(std::string_view field, std::string_view value) {
  for (char c : value)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      invalid(field, value, "contains a control character");
}

// A pool, namespace, image or snapshot name: one component of an image spec.
void check_spec_component(std::string_view field, std::string_view value, bool required) {
  if (required) require_nonempty(field, value);
  require_no_control(field, value);
  if (value.find_first_of("/@") != std::string_view::npos)
    invalid(field, value, "must not contain '/' or '@'");
  if (!value.empty() && value.front() == '-')
    invalid(field, value, "must not start with '-' (it would be read as an option)");
}

// A value placed inside a comma-separated -o list must not add options.
void check_option_value(std::string_view field, std::string_view value) {
  require_no_control(field, value);
  if (value.find_first_of(", ") != std::string_view::npos)
    invalid(field, value, "must not contain ',' or spaces (it would add mount options)");
}

void check_path(std::string_view field, std::string_view value) {
  require_nonempty(field, value);
  require_no_control(field, value);
  if (value.front() != '/') invalid(field, value, "must be an absolute path");
}

void check_monitors(const std::vector<std::string>& monitors) {
  if (monitors.empty()) throw Error(Errc::invalid_argument, "no monitors given");
  for (const auto& m : monitors) {
    require_nonempty("monitor", m);
    require_no_control("monitor", m);
    if (m.find(' ') != std::string::npos || m.front() == '-')
      invalid("monitor", m, "must be an address such as 10.0.0.1:6789");
  }
}

void check_credentials(const Credentials& c) {
  require_nonempty("cephx user ID", c.id);
  check_option_value("cephx user ID", c.id);
  if (c.id.rfind("client.", 0) == 0)
    invalid("cephx user ID", c.id, "give the ID without the \"client.\" prefix");
  if (c.key.has_value() == !c.keyfile.empty())
    throw Error(Errc::invalid_argument,
                "credentials for " + quote(c.id) + ": give exactly one of a key file or a key");
  if (c.key) {
    require_nonempty("key", *c.key);
  } else {
    check_path("key file", c.keyfile);
    check_option_value("key file", c.keyfile);
  }
}

std::string keyfile_of(const Credentials& c) { return c.key ? kStdinPath : c.keyfile; }

// Appends ",extra" unless extra is empty.
void add_options(std::string& options, std::string_view extra) {
  if (extra.empty()) return;
  if (!options.empty()) options += ',';
  options += extra;
}

}  // namespace

void validate(const MapRequest& r) {
  check_spec_component("pool", r.pool, true);
  check_spec_component("RADOS namespace", r.rados_namespace, false);
  check_spec_component("image", r.image, true);
  check_spec_component("snapshot", r.snapshot, false);
  check_monitors(r.monitors);
  check_credentials(r.credentials);
  require_no_control("map options", r.map_options);
}

void validate(const UnmapRequest& r) {
  require_nonempty("device or image spec", r.device_or_spec);
  require_no_control("device or image spec", r.device_or_spec);
  if (r.device_or_spec.front() == '-')
    invalid("device or image spec", r.device_or_spec, "must not start with '-'");
  require_no_control("unmap options", r.unmap_options);
}

void validate(const CephfsMountRequest& r) {
  check_monitors(r.monitors);
  check_path("CephFS root path", r.root_path);
  check_path("mount point", r.target);
  check_credentials(r.credentials);
  check_option_value("file system name", r.fs_name);
  require_no_control("mount options", r.mount_options);
  if (!r.ceph_conf.empty()) check_path("ceph.conf", r.ceph_conf);
}

void validate(const NfsMountRequest& r) {
  require_nonempty("NFS server", r.server);
  require_no_control("NFS server", r.server);
  if (r.server.front() == '-') invalid("NFS server", r.server, "must not start with '-'");
  check_path("NFS export path", r.export_path);
  check_path("mount point", r.target);
  require_no_control("mount options", r.mount_options);
}

void validate(const UmountRequest& r) { check_path("mount point", r.target); }

// nvme-cli writes the connect as one "transport=tcp,traddr=A,nqn=N,..."
// string to /dev/nvme-fabrics: a ',' or a blank in a value would add options.
void validate(const NvmeConnectRequest& r) {
  check_spec_component("NVMe transport", r.transport, true);
  check_option_value("NVMe transport", r.transport);
  for (const auto& [field, value] :
       {std::pair<std::string_view, const std::string&>{"subsystem NQN", r.subsystem_nqn},
        {"NVMe target address", r.traddr}}) {
    require_nonempty(field, value);
    check_option_value(field, value);
    if (value.front() == '-')
      invalid(field, value, "must not start with '-' (it would be read as an option)");
  }
  if (r.trsvcid == 0)
    throw Error(Errc::invalid_argument, "NVMe target port 0: give a port from 1 to 65535");
  if (r.ctrl_loss_tmo.find_first_not_of("0123456789") != std::string::npos &&
      r.ctrl_loss_tmo != "-1")
    invalid("controller loss timeout", r.ctrl_loss_tmo,
            "must be whole seconds (or -1: retry forever)");
  check_option_value("host NQN", r.host_nqn);
  if (!r.host_nqn.empty() && r.host_nqn.front() == '-')
    invalid("host NQN", r.host_nqn, "must not start with '-'");
  // Secrets are never quoted: only that they are wrong.
  for (const auto* secret : {&r.dhchap_secret, &r.dhchap_ctrl_secret})
    if (*secret && (secret->value().empty() || secret->value().front() == '-' ||
                    secret->value().find_first_of(", \t\n") != std::string::npos))
      throw Error(Errc::invalid_argument,
                  "a DH-CHAP secret is empty, starts with '-' or contains ',' or blanks "
                  "(expected the DHHC-1:NN:BASE64: form)");
}

std::optional<std::string> stdin_secret(const Credentials& credentials) { return credentials.key; }

}  // namespace detail

std::string MapRequest::image_spec() const {
  std::string spec = pool + "/";
  if (!rados_namespace.empty()) spec += rados_namespace + "/";
  spec += image;
  if (!snapshot.empty()) spec += "@" + snapshot;
  return spec;
}

std::vector<std::string> map_argv(const MapRequest& r, const Target& target,
                                  const Settings& settings) {
  detail::validate(r);
  std::vector<std::string> argv = {settings.rbd,
                                   "--id",
                                   r.credentials.id,
                                   "-m",
                                   join(r.monitors, ","),
                                   "--keyfile=" + detail::keyfile_of(r.credentials),
                                   "map",
                                   r.image_spec(),
                                   "--device-type",
                                   "krbd"};
  // Always noudev, as ceph-csi (appendKRbdDeviceTypeAndOptions): outside the
  // initial network namespace the kernel's uevents and udev's events do not
  // reach rbd, which would wait for them forever; and even in the initial
  // namespace a node without a running udevd (a container, a minimal VM:
  // seen in test/kernel) makes rbd wait the same way. /dev/rbdN itself comes
  // from devtmpfs, not from udev, and rbd prints its name.
  (void)target;
  argv.insert(argv.end(), {"--options", "noudev"});
  // Appended last, so that the user's options can override ours.
  if (!r.map_options.empty()) argv.insert(argv.end(), {"--options", r.map_options});
  if (r.read_only) argv.emplace_back("--read-only");
  return argv;
}

std::vector<std::string> unmap_argv(const UnmapRequest& r, const Target& target,
                                    const Settings& settings) {
  detail::validate(r);
  std::vector<std::string> argv = {settings.rbd, "unmap", r.device_or_spec, "--device-type",
                                   "krbd"};
  (void)target;  // noudev always, for the reasons given in map_argv
  argv.insert(argv.end(), {"--options", "noudev"});
  if (!r.unmap_options.empty()) argv.insert(argv.end(), {"--options", r.unmap_options});
  return argv;
}

std::vector<std::string> cephfs_mount_argv(const CephfsMountRequest& r, const Settings& settings) {
  detail::validate(r);
  std::string options =
      "name=" + r.credentials.id + ",secretfile=" + detail::keyfile_of(r.credentials);
  if (!r.fs_name.empty()) detail::add_options(options, "mds_namespace=" + r.fs_name);
  detail::add_options(options, r.mount_options);
  detail::add_options(options, "_netdev");
  return {settings.mount, "-t", "ceph", join(r.monitors, ",") + ":" + r.root_path,
          r.target,       "-o", options};
}

std::vector<std::string> ceph_fuse_argv(const CephfsMountRequest& r, const Settings& settings) {
  detail::validate(r);
  std::vector<std::string> argv = {settings.ceph_fuse, r.target, "-m", join(r.monitors, ",")};
  if (!r.ceph_conf.empty()) argv.insert(argv.end(), {"-c", r.ceph_conf});
  argv.insert(argv.end(), {"-n", "client." + r.credentials.id,
                           "--keyfile=" + detail::keyfile_of(r.credentials), "-r", r.root_path});
  std::string options = "nonempty";
  detail::add_options(options, r.mount_options);
  argv.insert(argv.end(), {"-o", options});
  if (!r.fs_name.empty()) argv.push_back("--client_mds_namespace=" + r.fs_name);
  return argv;
}

std::vector<std::string> nfs_mount_argv(const NfsMountRequest& r, const Settings& settings) {
  detail::validate(r);
  // mount.nfs takes an IPv6 server in brackets: "[fd00::1]:/export".
  const bool bare_v6 = r.server.find(':') != std::string::npos && r.server.front() != '[';
  const std::string server = bare_v6 ? "[" + r.server + "]" : r.server;
  std::vector<std::string> argv = {settings.mount, "-t", "nfs", server + ":" + r.export_path,
                                   r.target};
  if (!r.mount_options.empty()) argv.insert(argv.end(), {"-o", r.mount_options});
  return argv;
}

std::string NvmeConnectRequest::volume_key() const {
  return "nvme:" + subsystem_nqn + "@" + traddr + ":" + std::to_string(trsvcid);
}

std::vector<std::string> nvme_connect_argv(const NvmeConnectRequest& r, const Settings& settings) {
  detail::validate(r);
  std::vector<std::string> argv = {
      settings.nvme,   "connect", "-t",     r.transport, "-n",
      r.subsystem_nqn, "-a",      r.traddr, "-s",        std::to_string(r.trsvcid)};
  if (!r.ctrl_loss_tmo.empty()) argv.insert(argv.end(), {"-l", r.ctrl_loss_tmo});
  if (!r.host_nqn.empty()) argv.insert(argv.end(), {"--hostnqn", r.host_nqn});
  if (r.dhchap_secret) argv.insert(argv.end(), {"--dhchap-secret", *r.dhchap_secret});
  if (r.dhchap_ctrl_secret)
    argv.insert(argv.end(), {"--dhchap-ctrl-secret", *r.dhchap_ctrl_secret});
  return argv;
}

std::vector<std::string> umount_argv(const UmountRequest& r, const Settings& settings) {
  detail::validate(r);
  return {settings.umount, r.target};
}

}  // namespace netns::ceph
