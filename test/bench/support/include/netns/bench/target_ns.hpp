#pragma once
// The network namespace the benchmarks spawn into: a throw-away namespace
// held by a child this process created (netns::test::NetnsChild), created on
// first use and killed by PID at exit. Nothing is sent through it.
#include <sys/types.h>

#include <string>

namespace netns::bench {

struct TargetNs {
  std::string path;  // /proc/<child pid>/ns/net
  int fd = -1;       // open, close-on-exec, owned by the process-wide instance
  pid_t pid = -1;    // the child holding it
};

const TargetNs& target_ns();

}  // namespace netns::bench
