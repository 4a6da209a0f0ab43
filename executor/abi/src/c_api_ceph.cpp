// The C ABI's Ceph operations over netns::ceph::Runner: the same commands,
// serialization and cancellation as `netns-exec map|unmap|mount|umount`.
// Only in libnetns_exec.so and libnetns_exec.a (the CLI and the tests link
// netns_ceph themselves).
#include <cerrno>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c_api_types.hpp"
#include "netns_exec/ceph/ceph.hpp"
#include "netns_exec/redact.hpp"

struct netns_exec_ceph {
  netns_exec_ceph_op op = NETNS_EXEC_CEPH_MAP;
  netns::ceph::MapRequest map;
  netns::ceph::UnmapRequest unmap;
  netns::ceph::CephfsMountRequest cephfs;
  netns::ceph::NfsMountRequest nfs;
  netns::ceph::UmountRequest umount;
  std::string mount_type = "ceph";
  std::string id, keyfile, options, target, path = "/";
  std::optional<std::string> key;
  std::vector<std::string> monitors;
  netns::ceph::Settings settings;
};

namespace {

namespace ceph = netns::ceph;
using namespace netns::exec::detail::c_abi;  // this ABI's own helpers (c_api_types.hpp)

// Where each field goes; false: no such field.
bool set_field(netns_exec_ceph& c, std::string_view field, const char* value) {
  std::string v(value);
  ceph::Settings& s = c.settings;
  if (field == "pool")
    c.map.pool = v;
  else if (field == "image")
    c.map.image = v;
  else if (field == "rados_namespace")
    c.map.rados_namespace = v;
  else if (field == "snap")
    c.map.snapshot = v;
  else if (field == "mon")
    c.monitors.push_back(v);
  else if (field == "id")
    c.id = v;
  else if (field == "keyfile") {
    c.keyfile = v;
    c.key.reset();
  } else if (field == "options")
    c.options = v;
  else if (field == "read_only")
    c.map.read_only = v == "1";
  else if (field == "device")
    c.unmap.device_or_spec = v;
  else if (field == "type")
    c.mount_type = v;
  else if (field == "target")
    c.target = v;
  else if (field == "path")
    c.path = v;
  else if (field == "fs")
    c.cephfs.fs_name = v;
  else if (field == "server")
    c.nfs.server = v;
  else if (field == "ceph_conf")
    c.cephfs.ceph_conf = v;
  else if (field == "rbd_program")
    s.rbd = v;
  else if (field == "mount_program")
    s.mount = v;
  else if (field == "umount_program")
    s.umount = v;
  else if (field == "ceph_fuse_program")
    s.ceph_fuse = v;
  else if (field == "modprobe_program")
    s.modprobe = v;
  else if (field == "sys_bus_rbd")
    s.sys_bus_rbd = v;
  else if (field == "proc_filesystems")
    s.proc_filesystems = v;
  else if (field == "proc_mountinfo")
    s.proc_mountinfo = v;
  else if (field == "lock_dir")
    s.lock_dir = v;
  else
    return false;
  return true;
}

ceph::Credentials credentials(const netns_exec_ceph& c) {
  ceph::Credentials k;
  k.id = c.id;
  k.keyfile = c.key ? std::string() : c.keyfile;
  k.key = c.key;
  return k;
}

ceph::OperationResult operate(const netns_exec_ceph& c, ceph::Runner& runner,
                              const ceph::Target& target, const ceph::Cancellation& cancel) {
  switch (c.op) {
    case NETNS_EXEC_CEPH_MAP: {
      ceph::MapRequest r = c.map;
      r.monitors = c.monitors;
      r.credentials = credentials(c);
      r.map_options = c.options;
      return runner.map(r, target, cancel);
    }
    case NETNS_EXEC_CEPH_UNMAP: {
      ceph::UnmapRequest r = c.unmap;
      r.unmap_options = c.options;
      return runner.unmap(r, target, cancel);
    }
    case NETNS_EXEC_CEPH_MOUNT: {
      if (c.mount_type == "nfs") {
        ceph::NfsMountRequest r = c.nfs;
        r.export_path = c.path;
        r.target = c.target;
        r.mount_options = c.options;
        return runner.mount_nfs(r, target, cancel);
      }
      ceph::CephfsMountRequest r = c.cephfs;
      r.monitors = c.monitors;
      r.root_path = c.path;
      r.target = c.target;
      r.mount_options = c.options;
      r.credentials = credentials(c);
      if (c.mount_type == "ceph-fuse") return runner.mount_ceph_fuse(r, target, cancel);
      if (c.mount_type != "ceph")
        throw netns::Error(
            netns::Errc::invalid_argument,
            "mount type " + netns::quote(c.mount_type) + " is not ceph, ceph-fuse or nfs");
      return runner.mount_cephfs(r, target, cancel);
    }
    case NETNS_EXEC_CEPH_UMOUNT:
      return runner.umount(ceph::UmountRequest{.target = c.target}, target, cancel);
  }
  throw netns::Error(netns::Errc::invalid_argument, "unknown Ceph operation");
}

netns_exec_cancel_state state_of(ceph::Cancel cancel) {
  switch (cancel) {
    case ceph::Cancel::none:
      return NETNS_EXEC_CANCEL_NONE;
    case ceph::Cancel::not_started:
      return NETNS_EXEC_CANCEL_NOT_STARTED;
    case ceph::Cancel::undone:
      return NETNS_EXEC_CANCEL_UNDONE;
    case ceph::Cancel::nothing_left:
      return NETNS_EXEC_CANCEL_NOTHING_LEFT;
    case ceph::Cancel::left_behind:
      return NETNS_EXEC_CANCEL_LEFT_BEHIND;
    case ceph::Cancel::completed:
      return NETNS_EXEC_CANCEL_COMPLETED;
  }
  return NETNS_EXEC_CANCEL_NONE;
}

void fill(netns_exec_result& res, const ceph::OperationResult& r) {
  using netns::spawn::Outcome;
  const Outcome& o = r.process.outcome;
  res.exit_code = r.exit_code();
  res.out = r.process.out.data;
  res.err = r.process.err.data;
  res.out_truncated = r.process.out.truncated;
  res.err_truncated = r.process.err.truncated;
  res.device = r.device;
  res.leftover = r.leftover;
  res.cancel_state = state_of(r.cancel);
  res.already_done = r.already_done;
  res.error = netns::exec::redact(r.message);
  if (r.cancel == ceph::Cancel::not_started) {
    refuse(res, NETNS_EXEC_ERR_CANCELLED, "cancelled", res.error);
    return;
  }
  if (r.failure == ceph::Failure::cancelled) {
    res.outcome = NETNS_EXEC_OUTCOME_CANCELLED;
    res.signal = o.kind == Outcome::Kind::cancelled ? o.signal : 0;
    return;
  }
  if (r.failure == ceph::Failure::timed_out) {
    res.outcome = NETNS_EXEC_OUTCOME_TIMED_OUT;
    res.signal = o.kind == Outcome::Kind::timed_out ? o.signal : 0;
    return;
  }
  if (r.process.pid < 0 && !r.ok() && o.kind != Outcome::Kind::spawn_failed) {
    // Refused before anything ran (the kernel module is missing).
    refuse(res, NETNS_EXEC_ERR_SYSTEM, ceph::failure_name(r.failure), res.error);
    return;
  }
  switch (o.kind) {
    case Outcome::Kind::exited:
      res.outcome = NETNS_EXEC_OUTCOME_EXITED;
      res.status = o.exit_code;
      break;
    case Outcome::Kind::signalled:
    case Outcome::Kind::cancelled:
    case Outcome::Kind::timed_out:
      res.outcome = NETNS_EXEC_OUTCOME_SIGNALLED;
      res.signal = o.signal;
      break;
    case Outcome::Kind::status_lost:
      res.outcome = NETNS_EXEC_OUTCOME_STATUS_LOST;
      break;
    case Outcome::Kind::spawn_failed:
      res.outcome = NETNS_EXEC_OUTCOME_SPAWN_FAILED;
      res.stage = netns::spawn::stage_name(o.stage);
      res.sys_errno = o.error;
      break;
  }
}

}  // namespace

extern "C" {

const char* netns_exec_cancel_state_name(netns_exec_cancel_state state) {
  switch (state) {
    case NETNS_EXEC_CANCEL_NONE:
      return "none";
    case NETNS_EXEC_CANCEL_NOT_STARTED:
      return "not_started";
    case NETNS_EXEC_CANCEL_UNDONE:
      return "undone";
    case NETNS_EXEC_CANCEL_NOTHING_LEFT:
      return "nothing_left";
    case NETNS_EXEC_CANCEL_LEFT_BEHIND:
      return "left_behind";
    case NETNS_EXEC_CANCEL_COMPLETED:
      return "completed";
  }
  return "";
}

netns_exec_ceph* netns_exec_ceph_new(netns_exec_ceph_op op) {
  if (op != NETNS_EXEC_CEPH_MAP && op != NETNS_EXEC_CEPH_UNMAP && op != NETNS_EXEC_CEPH_MOUNT &&
      op != NETNS_EXEC_CEPH_UMOUNT)
    return nullptr;
  auto* c = new (std::nothrow) netns_exec_ceph();
  if (c != nullptr) c->op = op;
  return c;
}

void netns_exec_ceph_free(netns_exec_ceph* op) { delete op; }

int netns_exec_ceph_set(netns_exec_ceph* op, const char* field, const char* value) {
  return guarded(op, [&](netns_exec_ceph& c) {
    if (field == nullptr || value == nullptr) return -EINVAL;
    return set_field(c, field, value) ? 0 : -EINVAL;
  });
}

int netns_exec_ceph_set_key(netns_exec_ceph* op, const void* key, size_t len) {
  return guarded(op, [&](netns_exec_ceph& c) {
    if (key == nullptr) return -EINVAL;
    c.key = std::string(static_cast<const char*>(key), len);
    c.keyfile.clear();
    return 0;
  });
}

int netns_exec_request_set_cancel_grace_ms(netns_exec_request* req, uint64_t grace_ms) {
  return guarded(req, [&](netns_exec_request& r) {
    r.cancel_grace = ms(grace_ms);
    return 0;
  });
}

netns_exec_result* netns_exec_ceph_run(const netns_exec_request* req, const netns_exec_ceph* op) {
  if (req == nullptr || op == nullptr) return nullptr;
  return new_result([&](netns_exec_result& res) {
    require_source(*req);
    std::optional<netns::exec::ResolvedNamespace> ns = resolve_unless_cancelled(*req, res);
    if (!ns) {
      res.cancel_state = NETNS_EXEC_CANCEL_NOT_STARTED;
      return;
    }
    ceph::Settings settings = op->settings;
    settings.env = req->command.env;
    if (req->timeout_set && req->command.timeout > std::chrono::nanoseconds::zero())
      settings.timeout = req->command.timeout;
    settings.kill_grace = req->command.kill_grace;
    settings.cancel_grace = req->cancel_grace;
    ceph::Runner runner(settings);
    ceph::Target target;
    target.netns_fd = ns->own_namespace ? -1 : ns->fd.get();
    res.netns = ns->id;
    res.own_namespace = ns->own_namespace;
    ceph::OperationResult r =
        operate(*op, runner, target, ceph::Cancellation{req->command.cancel_fd});
    fill(res, r);
  });
}

const char* netns_exec_result_device(const netns_exec_result* res) {
  return str_or_empty(res, &netns_exec_result::device);
}
netns_exec_cancel_state netns_exec_result_cancel_state(const netns_exec_result* res) {
  return res == nullptr ? NETNS_EXEC_CANCEL_NONE : res->cancel_state;
}
const char* netns_exec_result_leftover(const netns_exec_result* res) {
  return str_or_empty(res, &netns_exec_result::leftover);
}
int netns_exec_result_already_done(const netns_exec_result* res) {
  return res != nullptr && res->already_done ? 1 : 0;
}

}  // extern "C"
