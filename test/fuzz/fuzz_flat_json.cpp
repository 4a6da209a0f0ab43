// The flat JSON reader under the record parser. Property: what it accepts,
// the writer reproduces member by member.
#include "fuzz_target.hpp"
#include "netns/flat_json.hpp"

namespace {
bool same(const netns::FlatJsonValue& a, const netns::FlatJsonValue& b) {
  using Kind = netns::FlatJsonValue::Kind;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::string:
      return a.string == b.string;
    case Kind::integer:
      return a.integer == b.integer;
    case Kind::boolean:
      return a.boolean == b.boolean;
    case Kind::null:
      return true;
  }
  return false;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return netns::fuzz::rejecting_errors([&] {
    netns::FlatJsonObject object = netns::parse_flat_json(netns::fuzz::as_text(data, size));
    netns::FlatJsonWriter writer;
    for (const auto& [key, value] : object) {
      using Kind = netns::FlatJsonValue::Kind;
      switch (value.kind) {
        case Kind::string:
          writer.add(key, value.string);
          break;
        case Kind::integer:
          writer.add(key, value.integer);
          break;
        case Kind::boolean:
          writer.add_bool(key, value.boolean);
          break;
        case Kind::null:
          writer.add_null(key);
          break;
      }
    }
    netns::FlatJsonObject again = netns::parse_flat_json(writer.finish());
    NETNS_FUZZ_CHECK(again.size() == object.size());
    for (size_t i = 0; i < object.size(); ++i) {
      NETNS_FUZZ_CHECK(again[i].first == object[i].first);
      NETNS_FUZZ_CHECK(same(again[i].second, object[i].second));
    }
  });
}
