#pragma once
// Everything the child needs, built in the caller before the clone: the
// argv and envp arrays, the PATH candidates, and the descriptors for stdio
// and the report pipe (all moved to numbers >= 3, all close-on-exec).
#include <string>
#include <vector>

#include "child.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/spawn.hpp"

namespace netns::spawn::detail {

struct Prepared {
  // Storage the plan's pointers point into.
  std::vector<char*> argv;
  std::vector<std::string> env_storage;
  std::vector<char*> envp;
  std::vector<std::string> candidate_storage;
  std::vector<const char*> candidates;

  // The caller's ends (non-blocking) and the child's ends.
  UniqueFd stdin_write, stdin_read;
  UniqueFd stdout_read, stdout_write;
  UniqueFd stderr_read, stderr_write;
  UniqueFd devnull;
  // Copies (>= 3) of caller-owned stdio descriptors that were 0..2 themselves.
  UniqueFd stdin_copy, stdout_copy, stderr_copy;
  UniqueFd report_read, report_write;

  ChildPlan plan;
};

// Throws netns::Error(invalid_argument) for a malformed command and
// netns::Error(system) when a descriptor cannot be created.
void prepare(const Command& command, Prepared& out);

// The PATH candidates for `file` under `path` (execvp's rules: a name with a
// '/' is used as is; an empty PATH element is the current directory).
std::vector<std::string> path_candidates(const std::string& file, const std::string& path);

}  // namespace netns::spawn::detail
