#include "command.hpp"

#include <algorithm>
#include <cstring>

namespace netns::cli {

namespace {
// A function-local static: registration runs from other files' static
// initialisers, whose order relative to this file is unspecified.
std::vector<CommandFactory>& registry() {
  static std::vector<CommandFactory> factories;
  return factories;
}
}  // namespace

bool register_command(CommandFactory factory) {
  registry().push_back(factory);
  return true;
}

std::vector<std::unique_ptr<Command>> make_commands() {
  std::vector<std::unique_ptr<Command>> out;
  for (auto factory : registry()) out.push_back(factory());
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return std::strcmp(a->name(), b->name()) < 0; });
  return out;
}

}  // namespace netns::cli
