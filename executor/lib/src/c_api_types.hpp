#pragma once
// The C ABI's handles, shared by its two halves: c_api.cpp (run) and
// c_api_ceph.cpp (map, unmap, mount, umount).
#include <chrono>
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

}  // namespace netns::exec::detail::c_abi
