#pragma once
// netns-exec's subcommands register themselves; main() builds the CLI11 app
// from the registry. Adding a subcommand is adding one file in this folder
// (the CMakeLists globs cli/*.cpp):
//
//   class InspectCommand final : public netns::cli::Command {
//    public:
//     const char* name() const override { return "inspect"; }
//     const char* description() const override { return "Show a namespace's ..."; }
//     void setup(CLI::App& app) override { source_.add_to(app); app.add_flag("--json", json_); }
//     int run() override { auto ns = resolve_source(source_); ...; return 0; }
//    private:
//     SourceOptions source_;
//     bool json_ = false;
//   };
//   NETNS_CLI_REGISTER(InspectCommand)
//
// run() returns the process exit code. Any netns::Error it throws is logged
// once by main() (redacted) and becomes exit 125: "the executor itself failed".
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace netns::cli {

// Exit codes (SPEC): the command's own, else these.
inline constexpr int kExitTimeout = 124;
inline constexpr int kExitExecutorFailed = 125;
inline constexpr int kExitNotExecutable = 126;
inline constexpr int kExitNotFound = 127;

// Options that apply to every subcommand, parsed before it runs.
struct Globals {
  std::string log_format = "text";  // text | json
  std::string log_level = "warn";
};
const Globals& globals();

class Command {
 public:
  virtual ~Command() = default;
  [[nodiscard]] virtual const char* name() const = 0;
  [[nodiscard]] virtual const char* description() const = 0;
  // Declares the options on `app`, the subcommand already named name().
  virtual void setup(CLI::App& app) = 0;
  // Runs after a successful parse; returns the exit code.
  virtual int run() = 0;
};

using CommandFactory = std::unique_ptr<Command> (*)();

// For NETNS_CLI_REGISTER (static initialisation); returns true.
bool register_command(CommandFactory factory);
// One instance of every registered command, sorted by name.
std::vector<std::unique_ptr<Command>> make_commands();

}  // namespace netns::cli

#define NETNS_CLI_REGISTER(Type)                                                            \
  namespace {                                                                               \
  [[maybe_unused]] const bool netns_cli_registered_##Type = ::netns::cli::register_command( \
      []() -> std::unique_ptr<::netns::cli::Command> { return std::make_unique<Type>(); }); \
  }
