// The holder record parser: <ID>.holder.json is read from a shared hostPath
// that other pods may write. Property: an accepted record serializes back to
// text that parses to the same record.
#include "fuzz_target.hpp"
#include "netns/holder_record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return netns::fuzz::rejecting_errors([&] {
    netns::HolderRecord record = netns::parse_record(netns::fuzz::as_text(data, size), "fuzz");
    NETNS_FUZZ_CHECK(netns::parse_record(netns::serialize_record(record), "again") == record);
  });
}
