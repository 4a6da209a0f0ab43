#pragma once
// Everything the child needs, built in the caller before the clone: the
// argv and envp arrays, the PATH candidates, and the descriptors for stdio
// and a fork child's report pipe (all moved to numbers >= 3, all
// close-on-exec).
#include <string>
#include <vector>

#include "child.hpp"
#include "netns/unique_fd.hpp"
#include "netns_exec/spawn/spawn.hpp"

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
  UniqueFd report_read, report_write;  // fork only
  ChildReport report;                  // CLONE_VM: the child stores here

  ChildPlan plan;
};

// Throws netns::Error(invalid_argument) for a malformed command and
// netns::Error(system) when a descriptor cannot be created.
// `report_pipe`: the child does not share our memory (fork), so it reports
// through a pipe; otherwise into out.report.
void prepare(const Command& command, Prepared& out, bool report_pipe);

// The PATH candidates for `file` under `path` (execvp's rules: a name with a
// '/' is used as is; an empty PATH element is the current directory).
std::vector<std::string> path_candidates(const std::string& file, const std::string& path);

}  // namespace netns::spawn::detail
