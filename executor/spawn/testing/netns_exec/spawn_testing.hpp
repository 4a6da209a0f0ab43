#pragma once
// Only for the spawn engine's own tests and benchmarks; not installed. How
// the child is created: the engine's clone(CLONE_VM | CLONE_VFORK), or the
// classic fork()+execve, which copies the caller's page tables (slow in a big
// caller) and is kept to measure exactly that difference.
#include <cstdint>

#include "netns_exec/spawn/spawn.hpp"

namespace netns::spawn {

enum class CloneMethod : uint8_t {
  automatic,
  clone,
  fork
};  // automatic == clone (fork in a TSan build: clone.cpp)
Result run(const Command& command, CloneMethod method);

}  // namespace netns::spawn
