#pragma once
// Facts about processes read from /proc.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace netns {

// The fields of a /proc/PID/stat line that are read here. The command name
// (field 2) may contain spaces and parentheses, so it ends at the LAST ')'
// and the other fields are counted after it.
struct ProcStat {
  std::string comm;         // field 2, without its parentheses
  char state = '?';         // field 3: R, S, D, Z (zombie), X (dead), ...
  pid_t ppid = 0;           // field 4
  uint64_t start_time = 0;  // field 22: clock ticks after boot
};

// The one /proc/PID/stat parser. Throws Error(invalid_argument) when the line
// is malformed (fewer than 22 fields, a field that is not a number).
ProcStat parse_stat(std::string_view stat_line);

// `pid`'s stat, or nullopt when the process does not exist (any more).
std::optional<ProcStat> read_stat(pid_t pid);

// Field 22: the start time in clock ticks after boot. Together with the pid
// it names a process uniquely until reboot (a reused pid has a later start
// time).
uint64_t parse_stat_start_time(std::string_view stat_line);

// Start time of `pid`, or nullopt when the process does not exist.
std::optional<uint64_t> pid_start_time(pid_t pid);

// This process's children now, across every thread's list
// (/proc/self/task/TID/children: a child belongs to the thread that created
// it, or to the main thread once it was reparented to us).
std::set<pid_t> own_children();

// /proc/sys/kernel/random/boot_id without the newline.
std::string read_boot_id();

}  // namespace netns
