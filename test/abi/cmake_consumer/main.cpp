// abi_cxx NETNS_FILE EXPECTED_NET_INODE: the C++ API of the installed
// library, including catching its typed error across the library boundary,
// and the functions of the installed netns/ headers (they must link).
#include <sched.h>
#include <netns/error.hpp>
#include <netns/holder_record.hpp>
#include <netns/nsfd.hpp>
#include <netns/unique_fd.hpp>
#include <netns_exec/executor.hpp>

#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  netns::spawn::Command cmd;
  cmd.argv = {"readlink", "/proc/self/ns/net"};
  auto r = netns::exec::run(netns::exec::Source::netns_path(argv[1]), cmd);
  if (r.exit_code() != 0 || r.result.out.data != "net:[" + std::string(argv[2]) + "]\n") {
    std::cerr << "abi_cxx: " << r.result.outcome.describe() << " " << r.result.out.data;
    return 1;
  }
  try {
    netns::exec::run(netns::exec::Source::netns_path("/nonexistent/abi.net.ns"), cmd);
    std::cerr << "abi_cxx: a missing file was not refused\n";
    return 1;
  } catch (const netns::Error& e) {
    if (e.code() != netns::Errc::not_found) {
      std::cerr << "abi_cxx: unexpected error " << e.describe() << "\n";
      return 1;
    }
  }
  // netns/nsfd.hpp, netns/holder_record.hpp: declared there, so exported.
  if (netns::current_netns_id() == r.netns ||
      std::string(netns::ns_type_name(CLONE_NEWNET)) != "net") {
    std::cerr << "abi_cxx: current_netns_id / ns_type_name\n";
    return 1;
  }
  netns::HolderRecord record;
  record.cluster_id = "abi";
  record.pid = 1;
  record.boot_id = "00000000-0000-0000-0000-000000000000";
  if (netns::parse_record(netns::serialize_record(record), "abi record") != record) {
    std::cerr << "abi_cxx: the record does not round-trip\n";
    return 1;
  }
  std::cout << "abi_cxx: ok\n";
  return 0;
}
