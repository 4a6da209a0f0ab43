#pragma once
// netns-exec's subcommands. Each is a Command in its own cmd_*.cpp file with
// a make_*_command() factory declared below; command.cpp's table lists every
// one, so a reader sees all commands in one place. Adding a subcommand is a
// file and a line in that table:
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
//   std::unique_ptr<Command> make_inspect_command() { return std::make_unique<InspectCommand>(); }
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

// One factory per subcommand, each defined in the cmd_*.cpp file named.
std::unique_ptr<Command> make_doctor_command();        // cmd_doctor.cpp
std::unique_ptr<Command> make_fence_info_command();    // cmd_fence_info.cpp
std::unique_ptr<Command> make_guard_command();         // cmd_guard.cpp
std::unique_ptr<Command> make_inspect_command();       // cmd_inspect.cpp
std::unique_ptr<Command> make_map_command();           // cmd_ceph.cpp
std::unique_ptr<Command> make_mount_command();         // cmd_ceph.cpp
std::unique_ptr<Command> make_nvme_connect_command();  // cmd_ceph.cpp
std::unique_ptr<Command> make_run_command();           // cmd_run.cpp
std::unique_ptr<Command> make_shim_command();          // cmd_shim.cpp
std::unique_ptr<Command> make_umount_command();        // cmd_ceph.cpp
std::unique_ptr<Command> make_unmap_command();         // cmd_ceph.cpp

// One instance of every command, in the order --help lists them.
std::vector<std::unique_ptr<Command>> make_commands();

}  // namespace netns::cli
