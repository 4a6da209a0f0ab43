#include "command.hpp"

namespace netns::cli {

namespace {

using CommandFactory = std::unique_ptr<Command> (*)();

// Every netns-exec subcommand, by name, in the order --help lists them.
constexpr CommandFactory kCommands[] = {
    make_doctor_command,        // doctor
    make_fence_info_command,    // fence-info
    make_guard_command,         // guard
    make_inspect_command,       // inspect
    make_map_command,           // map
    make_mount_command,         // mount
    make_nvme_connect_command,  // nvme-connect
    make_run_command,           // run
    make_shim_command,          // shim
    make_umount_command,        // umount
    make_unmap_command,         // unmap
};

}  // namespace

std::vector<std::unique_ptr<Command>> make_commands() {
  std::vector<std::unique_ptr<Command>> out;
  for (CommandFactory make : kCommands) out.push_back(make());
  return out;
}

}  // namespace netns::cli
