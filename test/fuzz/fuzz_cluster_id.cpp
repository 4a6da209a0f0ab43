// Cluster IDs become file names in a shared directory. Properties: the
// throwing and the non-throwing validators agree, and an accepted ID cannot
// name another directory, an option, or a file outside the holder dir.
#include <string>

#include "fuzz_target.hpp"
#include "netns/cluster_id.hpp"

namespace {
bool plain_file_name(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos && name != "." && name != ".." && name[0] != '-';
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view id = netns::fuzz::as_text(data, size);
  bool valid = !netns::cluster_id_problem(id).has_value();
  bool thrown = false;
  try {
    netns::validate_cluster_id(id);
  } catch (const netns::Error& e) {
    thrown = true;
    NETNS_FUZZ_CHECK(e.code() == netns::Errc::invalid_argument);
  }
  NETNS_FUZZ_CHECK(valid != thrown);
  if (!valid) return 0;
  NETNS_FUZZ_CHECK(id.size() >= 1 && id.size() <= netns::kMaxClusterIdLength);
  netns::HolderFileNames names = netns::holder_file_names(id);
  for (const std::string* name : {&names.ns_link, &names.record, &names.socket, &names.lock})
    NETNS_FUZZ_CHECK(plain_file_name(*name));
  return 0;
}
