// The C ABI over the C++ API. Every entry point is noexcept and catches
// everything: no exception may unwind into a C or Go caller.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <string>
#include <string_view>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/netns_exec.h"
#include "netns_exec/redact.hpp"

#include "c_api_types.hpp"

namespace {

using netns::exec::RunResult;
using netns::spawn::Outcome;

void fill_from(netns_exec_result& res, const RunResult& r) {
  const Outcome& o = r.result.outcome;
  res.exit_code = r.exit_code();
  res.netns = r.netns;
  res.own_namespace = r.own_namespace;
  res.warning = r.warning;
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

// The C enum's names are netns::errc_name()'s: one table maps both ways.
// By name rather than by a switch on netns::Errc, so a code that netns_common
// gains is passed on as soon as it has a value here, and until then is
// NETNS_EXEC_ERR_SYSTEM. Values are appended, never renumbered.
struct ErrcName {
  netns_exec_errc errc;
  std::string_view name;
};
constexpr ErrcName kErrcNames[] = {
    {NETNS_EXEC_ERR_INVALID_ARGUMENT, "invalid_argument"},
    {NETNS_EXEC_ERR_NOT_FOUND, "not_found"},
    {NETNS_EXEC_ERR_NOT_A_NAMESPACE, "not_a_namespace"},
    {NETNS_EXEC_ERR_WRONG_NAMESPACE, "wrong_namespace"},
    {NETNS_EXEC_ERR_OWN_NAMESPACE, "own_namespace"},
    {NETNS_EXEC_ERR_IDENTITY_MISMATCH, "identity_mismatch"},
    {NETNS_EXEC_ERR_STALE_HOLDER, "stale_holder"},
    {NETNS_EXEC_ERR_BUSY, "busy"},
    {NETNS_EXEC_ERR_PROTOCOL, "protocol"},
    {NETNS_EXEC_ERR_UNSUPPORTED, "unsupported"},
    {NETNS_EXEC_ERR_TIMEOUT, "timeout"},
    {NETNS_EXEC_ERR_SYSTEM, "system"},
    {NETNS_EXEC_ERR_CANCELLED, "cancelled"},
    {NETNS_EXEC_ERR_UNTRUSTED, "untrusted"},
};

}  // namespace

namespace netns::exec::detail::c_abi {

netns_exec_errc errc_of(netns::Errc code) {
  std::string_view name = netns::errc_name(code);
  for (const ErrcName& e : kErrcNames)
    if (e.name == name) return e.errc;
  return NETNS_EXEC_ERR_SYSTEM;
}

bool fired(const netns_exec_cancel* cancel) {
  if (cancel == nullptr) return false;
  pollfd p{cancel->pipe.read.get(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

void refuse(netns_exec_result& res, netns_exec_errc errc, std::string code, std::string message,
            int err) {
  res.outcome = NETNS_EXEC_OUTCOME_REFUSED;
  res.exit_code = 125;
  res.errc = errc;
  res.error_code = std::move(code);
  res.error = std::move(message);
  res.sys_errno = err;
}

bool refuse_thrown(netns_exec_result& res) {
  try {
    throw;
  } catch (const netns::Error& e) {
    refuse(res, errc_of(e.code()), netns::errc_name(e.code()), netns::exec::redact(e.describe()),
           e.sys_errno());
  } catch (const std::bad_alloc&) {
    return false;
  } catch (const std::exception& e) {
    refuse(res, NETNS_EXEC_ERR_SYSTEM, "system", netns::exec::redact(e.what()));
  } catch (...) {
    refuse(res, NETNS_EXEC_ERR_SYSTEM, "system", "unknown error");
  }
  return true;
}

std::chrono::milliseconds ms(uint64_t v) {
  constexpr uint64_t kMax = uint64_t{1} << 40;
  return std::chrono::milliseconds(static_cast<int64_t>(v > kMax ? kMax : v));
}

const char* str_or_empty(const netns_exec_result* res, const std::string netns_exec_result::*m) {
  return res == nullptr ? "" : (res->*m).c_str();
}

void require_source(const netns_exec_request& req) {
  if (!req.has_source)
    throw netns::Error(netns::Errc::invalid_argument, "no namespace source was set",
                       "call netns_exec_request_set_netns, _set_cluster or _set_socket");
}

std::optional<ResolvedNamespace> resolve_unless_cancelled(const netns_exec_request& req,
                                                          netns_exec_result& res) {
  auto cancelled = [&] {
    if (!fired(req.cancel)) return false;
    refuse(res, NETNS_EXEC_ERR_CANCELLED, "cancelled",
           "cancelled before the command started; nothing was run");
    return true;
  };
  if (cancelled()) return std::nullopt;
  ResolvedNamespace ns = netns::exec::resolve(req.source, req.resolve);
  if (cancelled()) return std::nullopt;
  return ns;
}

}  // namespace netns::exec::detail::c_abi

namespace {

using namespace netns::exec::detail::c_abi;  // this ABI's own helpers (c_api_types.hpp)

// What fill_from leaves out: the cancelled outcome, and the stage and errno
// of a spawn failure.
void fill_details(netns_exec_result& res, const RunResult& r) {
  const Outcome& o = r.result.outcome;
  if (o.kind == Outcome::Kind::cancelled) {
    res.outcome = NETNS_EXEC_OUTCOME_CANCELLED;
    res.signal = o.signal;
    res.error = o.describe();
  } else if (o.kind == Outcome::Kind::spawn_failed) {
    res.stage = netns::spawn::stage_name(o.stage);
    res.sys_errno = o.error;
  }
}

}  // namespace

extern "C" {

const char* netns_exec_version(void) { return NETNS_EXEC_VERSION; }

netns_exec_request* netns_exec_request_new(void) { return new (std::nothrow) netns_exec_request(); }

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
      case NETNS_EXEC_KIND_RBD:
        k = netns::exec::ConfigKind::rbd;
        break;
      case NETNS_EXEC_KIND_CEPHFS:
        k = netns::exec::ConfigKind::cephfs;
        break;
      case NETNS_EXEC_KIND_NFS:
        k = netns::exec::ConfigKind::nfs;
        break;
      default:
        return -EINVAL;
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

int netns_exec_request_set_cwd(netns_exec_request* req, const char* dir) {
  return guarded(req, [&](netns_exec_request& r) {
    if (dir == nullptr)
      r.command.cwd.reset();
    else
      r.command.cwd = std::string(dir);
    return 0;
  });
}

int netns_exec_request_set_stdin(netns_exec_request* req, const void* data, size_t len) {
  return guarded(req, [&](netns_exec_request& r) {
    if (data == nullptr && len > 0) return -EINVAL;
    r.command.stdin_data = std::string(static_cast<const char*>(data), len);
    r.command.stdin_mode = netns::spawn::InputMode::null;
    r.command.stdin_fd = -1;
    return 0;
  });
}

int netns_exec_request_set_stdio_fds(netns_exec_request* req, int stdin_fd, int stdout_fd,
                                     int stderr_fd) {
  return guarded(req, [&](netns_exec_request& r) {
    if (stdin_fd < -1 || stdout_fd < -1 || stderr_fd < -1) return -EINVAL;
    using netns::spawn::InputMode;
    using netns::spawn::OutputMode;
    if (stdin_fd >= 0) r.command.stdin_data.reset();
    r.command.stdin_mode = stdin_fd >= 0 ? InputMode::fd : InputMode::null;
    r.command.stdin_fd = stdin_fd;
    r.command.stdout_mode = stdout_fd >= 0 ? OutputMode::fd : OutputMode::capture;
    r.command.stdout_fd = stdout_fd;
    r.command.stderr_mode = stderr_fd >= 0 ? OutputMode::fd : OutputMode::capture;
    r.command.stderr_fd = stderr_fd;
    return 0;
  });
}

int netns_exec_request_set_cancel(netns_exec_request* req, netns_exec_cancel* cancel) {
  return guarded(req, [&](netns_exec_request& r) {
    r.cancel = cancel;
    r.command.cancel_fd = cancel != nullptr ? cancel->pipe.read.get() : -1;
    return 0;
  });
}

netns_exec_cancel* netns_exec_cancel_new(void) {
  try {
    auto* c = new netns_exec_cancel{netns::make_pipe(O_NONBLOCK)};
    return c;
  } catch (const netns::Error& e) {
    errno = e.sys_errno() != 0 ? e.sys_errno() : EMFILE;
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
  } catch (...) {
    errno = EINVAL;
  }
  return nullptr;
}

int netns_exec_cancel_fire(netns_exec_cancel* cancel) {
  if (cancel == nullptr) return -EINVAL;
  const char byte = 1;
  int saved = errno;  // async-signal-safe callers must not see errno change
  ssize_t n;
  do {
    n = ::write(cancel->pipe.write.get(), &byte, 1);
  } while (n < 0 && errno == EINTR);
  errno = saved;
  return 0;  // EAGAIN: the pipe is full of earlier fires, readable all the same
}

void netns_exec_cancel_free(netns_exec_cancel* cancel) { delete cancel; }

int netns_exec_request_set_timeout_ms(netns_exec_request* req, uint64_t timeout_ms) {
  return guarded(req, [&](netns_exec_request& r) {
    r.command.timeout = ms(timeout_ms);
    r.timeout_set = true;
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

int netns_exec_request_set_allow_unrecorded_netns(netns_exec_request* req, int allow) {
  return guarded(req, [&](netns_exec_request& r) {
    r.resolve.allow_unrecorded_netns = allow != 0;
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
  return new_result([&](netns_exec_result& res) {
    require_source(*req);
    if (req->command.argv.empty())
      throw netns::Error(netns::Errc::invalid_argument, "no command was set",
                         "call netns_exec_request_set_argv");
    std::optional<netns::exec::ResolvedNamespace> ns = resolve_unless_cancelled(*req, res);
    if (!ns) return;
    RunResult r = netns::exec::run_in(*ns, req->command);
    fill_from(res, r);
    fill_details(res, r);
  });
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
netns_exec_errc netns_exec_result_errc(const netns_exec_result* res) {
  return res == nullptr ? NETNS_EXEC_ERR_NONE : res->errc;
}
int netns_exec_result_errno(const netns_exec_result* res) {
  return res == nullptr ? 0 : res->sys_errno;
}
const char* netns_exec_result_stage(const netns_exec_result* res) {
  return str_or_empty(res, &netns_exec_result::stage);
}

const char* netns_exec_errc_name(netns_exec_errc errc) {
  for (const ErrcName& e : kErrcNames)
    if (e.errc == errc) return e.name.data();  // literals: NUL-terminated
  return "";
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
const char* netns_exec_result_warning(const netns_exec_result* res) {
  return str_or_empty(res, &netns_exec_result::warning);
}

}  // extern "C"
