#pragma once
// netns-holder's exit statuses. Each failure class has its own code so that a
// DaemonSet's restart reason (and `check` in an exec probe) tells the operator
// what happened without reading logs. Documented in --help.

namespace netns::holder {

inline constexpr int kExitOk = 0;  // stopped by SIGTERM/SIGINT; check: healthy
// Runtime failure (directory, lock file, publishing, socket); for check: not healthy.
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage =
    2;  // bad command line: unknown flag, bad value, invalid cluster ID
inline constexpr int kExitBusy = 3;  // another holder holds <ID>.lock
inline constexpr int kExitRefused =
    4;  // symlink mode as PID 1 of a child pid namespace, or the host netns

}  // namespace netns::holder
