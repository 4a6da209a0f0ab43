#include "log.hpp"

#include <unistd.h>

#include <string>

namespace netns::holder {

namespace {
void emit(int fd, std::string_view prefix, std::string_view message) {
  std::string line;
  line.reserve(prefix.size() + message.size() + 1);
  line.append(prefix).append(message);
  if (line.empty() || line.back() != '\n') line += '\n';
  // Best effort: there is nobody to tell when stderr itself is gone.
  std::string_view rest = line;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n <= 0) return;
    rest.remove_prefix(static_cast<size_t>(n));
  }
}
}  // namespace

void log_line(std::string_view message) { emit(STDERR_FILENO, "netns-holder: ", message); }
void log_warning(std::string_view message) {
  emit(STDERR_FILENO, "netns-holder: warning: ", message);
}
void print_line(std::string_view message) { emit(STDOUT_FILENO, "", message); }

}  // namespace netns::holder
