// The C ABI over the C++ API. Every entry point is noexcept and catches
// everything: no exception may unwind into a C or Go caller.
#include <cerrno>
#include <new>
#include <string>

#include "netns/error.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/netns_exec.h"
#include "netns_exec/redact.hpp"

struct netns_exec_request {
  netns::exec::Source source;
  bool has_source = false;
  netns::spawn::Command command;
  netns::exec::ResolveOptions resolve;
};

struct netns_exec_result {
  netns_exec_outcome outcome = NETNS_EXEC_OUTCOME_REFUSED;
  int exit_code = 125;
  int status = 0;
  int signal = 0;
  std::string out, err;
  bool out_truncated = false, err_truncated = false;
  std::string error;
  std::string error_code;
  netns::NsId netns;
  bool own_namespace = false;
};

namespace {

using netns::exec::RunResult;
using netns::spawn::Outcome;

template <typename F>
int guarded(netns_exec_request* req, F&& f) noexcept {
  if (req == nullptr) return -EINVAL;
  try {
    return f(*req);
  } catch (const std::bad_alloc&) {
    return -ENOMEM;
  } catch (...) {
    return -EINVAL;
  }
}

std::chrono::milliseconds ms(uint64_t v) {
  constexpr uint64_t kMax = uint64_t{1} << 40;  // ~35 years: keeps nanoseconds in range
  return std::chrono::milliseconds(static_cast<int64_t>(v > kMax ? kMax : v));
}

void fill_from(netns_exec_result& res, const RunResult& r) {
  const Outcome& o = r.result.outcome;
  res.exit_code = r.exit_code();
  res.netns = r.netns;
  res.own_namespace = r.own_namespace;
  // The command's own bytes, untouched: redaction is for our messages and
  // logs, never for the command's data.
  res.out = r.result.out.data;
  res.err = r.result.err.data;
  res.out_truncated = r.result.out.truncated;
  res.err_truncated = r.result.err.truncated;
  switch (o.kind) {
    case Outcome::Kind::exited:
      res.outcome = NETNS_EXEC_OUTCOME_EXITED;
      res.status = o.exit_code;
      break;
    case Outcome::Kind::signalled:
    case Outcome::Kind::cancelled:  // no cancel descriptor in the C ABI yet
      res.outcome = NETNS_EXEC_OUTCOME_SIGNALLED;
      res.signal = o.signal;
      break;
    case Outcome::Kind::timed_out:
      res.outcome = NETNS_EXEC_OUTCOME_TIMED_OUT;
      res.signal = o.signal;
      res.error = o.describe();
      break;
    case Outcome::Kind::status_lost:
      res.outcome = NETNS_EXEC_OUTCOME_STATUS_LOST;
      res.error = o.describe();
      break;
    case Outcome::Kind::spawn_failed:
      res.outcome = NETNS_EXEC_OUTCOME_SPAWN_FAILED;
      res.error = netns::exec::redact(o.describe());
      break;
  }
}

const char* str_or_empty(const netns_exec_result* res, const std::string netns_exec_result::*m) {
  return res == nullptr ? "" : (res->*m).c_str();
}

}  // namespace

extern "C" {

const char* netns_exec_version(void) { return NETNS_EXEC_VERSION; }

netns_exec_request* netns_exec_request_new(void) {
  return new (std::nothrow) netns_exec_request();
}

void netns_exec_request_free(netns_exec_request* req) { delete req; }

int netns_exec_request_set_netns(netns_exec_request* req, const char* path) {
  return guarded(req, [&](netns_exec_request& r) {
    if (path == nullptr) return -EINVAL;
    r.source = netns::exec::Source::netns_path(path);
    r.has_source = true;
    return 0;
  });
}

int netns_exec_request_set_cluster(netns_exec_request* req, const char* cluster_id,
                                   const char* config, netns_exec_config_kind kind) {
  return guarded(req, [&](netns_exec_request& r) {
    if (cluster_id == nullptr) return -EINVAL;
    netns::exec::ConfigKind k;
    switch (kind) {
      case NETNS_EXEC_KIND_RBD: k = netns::exec::ConfigKind::rbd; break;
      case NETNS_EXEC_KIND_CEPHFS: k = netns::exec::ConfigKind::cephfs; break;
      case NETNS_EXEC_KIND_NFS: k = netns::exec::ConfigKind::nfs; break;
      default: return -EINVAL;
    }
    r.source = netns::exec::Source::cluster(
        cluster_id, config != nullptr ? config : netns::exec::kDefaultCephCsiConfig, k);
    r.has_source = true;
    return 0;
  });
}

int netns_exec_request_set_socket(netns_exec_request* req, const char* path) {
  return guarded(req, [&](netns_exec_request& r) {
    if (path == nullptr) return -EINVAL;
    r.source = netns::exec::Source::socket(path);
    r.has_source = true;
    return 0;
  });
}

int netns_exec_request_set_argv(netns_exec_request* req, const char* const* argv) {
  return guarded(req, [&](netns_exec_request& r) {
    if (argv == nullptr || argv[0] == nullptr) return -EINVAL;
    std::vector<std::string> v;
    for (size_t i = 0; argv[i] != nullptr; ++i) v.emplace_back(argv[i]);
    r.command.argv = std::move(v);
    return 0;
  });
}

int netns_exec_request_set_env(netns_exec_request* req, const char* const* env) {
  return guarded(req, [&](netns_exec_request& r) {
    if (env == nullptr) {
      r.command.env.reset();
      return 0;
    }
    std::vector<std::string> v;
    for (size_t i = 0; env[i] != nullptr; ++i) v.emplace_back(env[i]);
    r.command.env = std::move(v);
    return 0;
  });
}

int netns_exec_request_set_stdin(netns_exec_request* req, const void* data, size_t len) {
  return guarded(req, [&](netns_exec_request& r) {
    if (data == nullptr && len > 0) return -EINVAL;
    r.command.stdin_data = std::string(static_cast<const char*>(data), len);
    return 0;
  });
}

int netns_exec_request_set_timeout_ms(netns_exec_request* req, uint64_t timeout_ms) {
  return guarded(req, [&](netns_exec_request& r) {
    r.command.timeout = ms(timeout_ms);
    return 0;
  });
}

int netns_exec_request_set_kill_grace_ms(netns_exec_request* req, uint64_t grace_ms) {
  return guarded(req, [&](netns_exec_request& r) {
    r.command.kill_grace = ms(grace_ms);
    return 0;
  });
}

int netns_exec_request_set_wait_holder_ms(netns_exec_request* req, uint64_t wait_ms) {
  return guarded(req, [&](netns_exec_request& r) {
    r.resolve.wait_holder = ms(wait_ms);
    return 0;
  });
}

int netns_exec_request_set_identity(netns_exec_request* req, netns_exec_identity identity) {
  return guarded(req, [&](netns_exec_request& r) {
    switch (identity) {
      case NETNS_EXEC_IDENTITY_IF_PRESENT:
        r.resolve.identity = netns::exec::IdentityPolicy::if_present;
        return 0;
      case NETNS_EXEC_IDENTITY_REQUIRE:
        r.resolve.identity = netns::exec::IdentityPolicy::require;
        return 0;
      case NETNS_EXEC_IDENTITY_OFF:
        r.resolve.identity = netns::exec::IdentityPolicy::off;
        return 0;
    }
    return -EINVAL;
  });
}

int netns_exec_request_set_allow_own_netns(netns_exec_request* req, int allow) {
  return guarded(req, [&](netns_exec_request& r) {
    r.resolve.allow_own_netns = allow != 0;
    return 0;
  });
}

int netns_exec_request_set_output_limit(netns_exec_request* req, size_t bytes) {
  return guarded(req, [&](netns_exec_request& r) {
    r.command.output_limit = bytes;
    return 0;
  });
}

netns_exec_result* netns_exec_run(const netns_exec_request* req) {
  if (req == nullptr) return nullptr;
  netns_exec_result* res = new (std::nothrow) netns_exec_result();
  if (res == nullptr) return nullptr;
  try {
    if (!req->has_source)
      throw netns::Error(netns::Errc::invalid_argument, "no namespace source was set",
                         "call netns_exec_request_set_netns, _set_cluster or _set_socket");
    if (req->command.argv.empty())
      throw netns::Error(netns::Errc::invalid_argument, "no command was set",
                         "call netns_exec_request_set_argv");
    fill_from(*res, netns::exec::run(req->source, req->command, req->resolve));
  } catch (const netns::Error& e) {
    res->outcome = NETNS_EXEC_OUTCOME_REFUSED;
    res->exit_code = 125;
    res->error_code = netns::errc_name(e.code());
    res->error = netns::exec::redact(e.describe());
  } catch (const std::bad_alloc&) {
    delete res;
    return nullptr;
  } catch (const std::exception& e) {
    res->outcome = NETNS_EXEC_OUTCOME_REFUSED;
    res->exit_code = 125;
    res->error_code = "system";
    res->error = netns::exec::redact(e.what());
  } catch (...) {
    res->outcome = NETNS_EXEC_OUTCOME_REFUSED;
    res->exit_code = 125;
    res->error_code = "system";
    res->error = "unknown error";
  }
  return res;
}

void netns_exec_result_free(netns_exec_result* res) { delete res; }

netns_exec_outcome netns_exec_result_outcome(const netns_exec_result* res) {
  return res == nullptr ? NETNS_EXEC_OUTCOME_REFUSED : res->outcome;
}
int netns_exec_result_exit_code(const netns_exec_result* res) {
  return res == nullptr ? 125 : res->exit_code;
}
int netns_exec_result_status(const netns_exec_result* res) {
  return res == nullptr ? 0 : res->status;
}
int netns_exec_result_signal(const netns_exec_result* res) {
  return res == nullptr ? 0 : res->signal;
}
const char* netns_exec_result_stdout(const netns_exec_result* res, size_t* len) {
  if (len != nullptr) *len = res == nullptr ? 0 : res->out.size();
  return str_or_empty(res, &netns_exec_result::out);
}
const char* netns_exec_result_stderr(const netns_exec_result* res, size_t* len) {
  if (len != nullptr) *len = res == nullptr ? 0 : res->err.size();
  return str_or_empty(res, &netns_exec_result::err);
}
int netns_exec_result_stdout_truncated(const netns_exec_result* res) {
  return res != nullptr && res->out_truncated ? 1 : 0;
}
int netns_exec_result_stderr_truncated(const netns_exec_result* res) {
  return res != nullptr && res->err_truncated ? 1 : 0;
}
const char* netns_exec_result_error(const netns_exec_result* res) {
  return str_or_empty(res, &netns_exec_result::error);
}
const char* netns_exec_result_error_code(const netns_exec_result* res) {
  return str_or_empty(res, &netns_exec_result::error_code);
}
uint64_t netns_exec_result_netns_ino(const netns_exec_result* res) {
  return res == nullptr ? 0 : res->netns.ino;
}
uint64_t netns_exec_result_netns_dev(const netns_exec_result* res) {
  return res == nullptr ? 0 : res->netns.dev;
}
int netns_exec_result_own_namespace(const netns_exec_result* res) {
  return res != nullptr && res->own_namespace ? 1 : 0;
}

}  // extern "C"
