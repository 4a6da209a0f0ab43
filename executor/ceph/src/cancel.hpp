#pragma once
// The end of a map, unmap, mount or umount that was cancelled or timed out
// after its command started: undo what a map or mount made, or report how
// far an unmap or umount got. Runs under the volume lock, so no other caller
// can take a mapping for its own (already_done) while it is being undone.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netns_exec/ceph/ceph.hpp"

namespace netns::ceph::detail {

// What a stopped map or mount left on the node and how to undo it. An empty
// `made` marks an unmap or umount: nothing to undo, it runs to completion.
struct Undo {
  // The device or mount point the command made (read from its output, else
  // from sysfs / mountinfo after it stopped); nullopt: nothing is there.
  std::function<std::optional<std::string>(const OperationResult&)> made;
  // The command that removes it.
  std::function<std::vector<std::string>(const std::string&)> argv;
  // "mapped" or "mounted", for messages.
  std::string_view state;
};

// How long the undo of a stopped map or mount may take (its own bound, then
// SIGTERM, kill_grace, SIGKILL): the longest of Settings::timeout,
// Settings::cancel_grace and kMinUndoBound, so that a short timeout that
// stopped the command does not also cut off the way back.
inline constexpr std::chrono::seconds kMinUndoBound{30};
std::chrono::nanoseconds undo_bound(const Settings& settings);

// A result for a request cancelled before its command started.
OperationResult not_started(std::string_view what, const std::vector<std::string>& argv);

// Completes `result` of a command whose Result::stop is set: failure,
// cancel, undo_argv, leftover and one message saying what is left.
void settle(OperationResult& result, std::string_view what, const Settings& settings,
            const Target& target, const Undo& undo);

}  // namespace netns::ceph::detail
