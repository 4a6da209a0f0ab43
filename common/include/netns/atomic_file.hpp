#pragma once
// Publishing files in the shared holder directory so that a reader sees
// either the old file or the complete new one, never a partial one: write a
// temporary name in the same directory, fsync, rename over the final name,
// fsync the directory.
#include <sys/types.h>

#include <string>
#include <string_view>

#include "netns/path.hpp"  // join_path, for the callers that name what they publish

namespace netns {

// `dir_shown` is the directory's path for messages.
void write_file_atomic(int dirfd, const std::string& name, std::string_view content, mode_t mode,
                       std::string_view dir_shown);
void symlink_atomic(int dirfd, const std::string& name, const std::string& target,
                    std::string_view dir_shown);

}  // namespace netns
