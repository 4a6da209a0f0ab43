#pragma once
// The C ABI's handles and the helpers its two halves share: c_api.cpp (run)
// and c_api_ceph.cpp (map, unmap, mount, umount).
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <new>
#include <optional>
#include <string>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/nsfd.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/netns_exec.h"

struct netns_exec_request {
  netns::exec::Source source;
  bool has_source = false;
  netns::spawn::Command command;
  netns::exec::ResolveOptions resolve;
  netns_exec_cancel* cancel = nullptr;  // not owned
  // Ceph operations: how long a started command may still finish after a
  // cancel or the timeout (netns_exec_request_set_cancel_grace_ms).
  std::chrono::nanoseconds cancel_grace = std::chrono::seconds(30);
  bool timeout_set = false;
};

// A pipe nobody reads: firing writes a byte, which leaves the read end
// readable for good — what the spawn engine's cancel_fd polls for. write(2)
// is async-signal-safe, and a full pipe (EAGAIN) is just as readable.
struct netns_exec_cancel {
  netns::Pipe pipe;
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
  netns_exec_errc errc = NETNS_EXEC_ERR_NONE;
  int sys_errno = 0;
  std::string stage;  // spawn_failed: where
  netns::NsId netns;
  bool own_namespace = false;
  std::string warning;  // the config's non-fatal note (netns_exec_result_warning)
  // Ceph operations only.
  std::string device;    // map: the device
  std::string leftover;  // LEFT_BEHIND: what is still mapped or mounted
  netns_exec_cancel_state cancel_state = NETNS_EXEC_CANCEL_NONE;
  bool already_done = false;
};

namespace netns::exec::detail::c_abi {

// The C enum value of a netns::Errc (by name; NETNS_EXEC_ERR_SYSTEM for one
// this ABI does not know yet).
netns_exec_errc errc_of(netns::Errc code);

// Whether the handle has fired: its pipe has a byte (never read, so it stays).
bool fired(const netns_exec_cancel* cancel);

// Fills `res` as a refusal: nothing ran, exit code 125.
void refuse(netns_exec_result& res, netns_exec_errc errc, std::string code, std::string message,
            int err = 0);

// Fills `res` as a refusal from the exception being handled; call it only in
// a catch block. False: it was std::bad_alloc, and there is no result to give.
bool refuse_thrown(netns_exec_result& res);

// A duration given to the C ABI in milliseconds, capped at 2^40 ms (~35
// years) so that it stays in range as nanoseconds.
std::chrono::milliseconds ms(uint64_t v);

// The member's text, or "" for a null result.
const char* str_or_empty(const netns_exec_result* res, const std::string netns_exec_result::*m);

// Throws invalid_argument when the request names no namespace source.
void require_source(const netns_exec_request& req);

// The request's source, resolved. nullopt when its cancel handle fired
// before or during the resolve (or its wait for the holder): `res` is then
// the "cancelled" refusal, and nothing has run.
std::optional<ResolvedNamespace> resolve_unless_cancelled(const netns_exec_request& req,
                                                          netns_exec_result& res);

// A setter of the C ABI: f(*handle)'s return, -EINVAL for a null handle,
// -ENOMEM when memory ran out, -EINVAL for any other throw.
template <typename Handle, typename F>
int guarded(Handle* handle, F&& f) noexcept {
  if (handle == nullptr) return -EINVAL;
  try {
    return f(*handle);
  } catch (const std::bad_alloc&) {
    return -ENOMEM;
  } catch (...) {
    return -EINVAL;
  }
}

// A run of the C ABI: a new result that body(res) fills, and where body
// throws, the refusal (refuse_thrown). nullptr when memory ran out.
template <typename F>
netns_exec_result* new_result(F&& body) {
  netns_exec_result* res = new (std::nothrow) netns_exec_result();
  if (res == nullptr) return nullptr;
  try {
    body(*res);
  } catch (...) {
    if (!refuse_thrown(*res)) {
      delete res;
      return nullptr;
    }
  }
  return res;
}

}  // namespace netns::exec::detail::c_abi
