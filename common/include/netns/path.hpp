#pragma once
// Path text: joining and splitting names for messages and for opening a
// directory and then an entry in it. Only text: nothing here looks at the
// filesystem (trusted_path.hpp walks one).
#include <string>
#include <string_view>
#include <utility>

namespace netns {

// "<dir>/<name>", without a second slash when `dir` ends in one.
std::string join_path(std::string_view dir, std::string_view name);

// The directory and the last component of `path`, trailing slashes ignored:
// "/a/b/" -> {"/a", "b"}, "/b" -> {"/", "b"}, "b" -> {".", "b"}, "/" -> {"/", ""}.
std::pair<std::string, std::string> split_path(std::string_view path);

}  // namespace netns
