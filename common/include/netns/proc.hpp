#pragma once
// Facts about processes read from /proc.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netns {

// Field 22 of a /proc/PID/stat line: the start time in clock ticks after
// boot. Together with the pid it names a process uniquely until reboot (a
// reused pid has a later start time). The command name (field 2) may contain
// spaces and parentheses, so fields are counted after the LAST ')'.
// Throws Error(invalid_argument) when the line is malformed.
uint64_t parse_stat_start_time(std::string_view stat_line);

// Start time of `pid`, or nullopt when the process does not exist.
std::optional<uint64_t> pid_start_time(pid_t pid);

// /proc/sys/kernel/random/boot_id without the newline.
std::string read_boot_id();

}  // namespace netns
