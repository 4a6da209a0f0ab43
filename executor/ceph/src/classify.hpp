#pragma once
// Turning a finished command into an OperationResult: the failure class and
// one redacted line saying what failed, why, and what to check. Also the
// kernel-support probes that let map and mount fail fast on a node without
// the module (rbd map would otherwise first spend its whole timeout talking
// to the cluster).
#include <optional>
#include <string>
#include <string_view>

#include "netns_exec/ceph/ceph.hpp"

namespace netns::ceph::detail {

// failure and message from the process outcome alone. `what` names the
// operation and volume ("map \"pool/img\"").
void classify(OperationResult& result, std::string_view what, std::string_view program);

// The last lines of the command's stderr (or stdout), redacted, on one line.
std::string output_excerpt(const spawn::Result& process);

// nullopt when the kernel can do it; otherwise why not (modprobe's answer).
std::optional<std::string> rbd_support_problem(const Settings& settings);
std::optional<std::string> filesystem_support_problem(const Settings& settings,
                                                      std::string_view fs_type);

// What the commands print when the kernel lacks the module.
bool says_rbd_module_missing(std::string_view output);
bool says_filesystem_missing(std::string_view output, std::string_view fs_type);

}  // namespace netns::ceph::detail
