#pragma once
// Plain lines on stderr, one per event, each written with a single write(2)
// so lines from several processes sharing the stream never interleave.
#include <string_view>

namespace netns::holder {

void log_line(std::string_view message);
void log_warning(std::string_view message);
// For stdout (check's success line, --help).
void print_line(std::string_view message);

}  // namespace netns::holder
