// The one redaction. Properties, for any text: redact() never fails and never
// grows a text without hiding something; and a secret planted in each form
// the SPEC names — --key V, --key=V, -osecret=V,
// secret=V inside an -o list, keyring "key = V", and a known secret quoted
// anywhere — never survives, whatever text surrounds it.
#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "netns_exec/redact.hpp"

namespace {

// A planted secret: 16 characters of the key alphabet, none of which ends a
// value, so the expected redaction covers all of it.
const std::string kSecret = "AQBfuzzS3cr3t+/Z";

bool leaks(const std::string& out) { return out.find(kSecret) != std::string::npos; }

// Surroundings that keep the form intact: the text before ends with a
// separator, the text after starts with one.
std::string before(std::string_view t) { return std::string(t) + " "; }
std::string after(std::string_view t) { return " " + std::string(t); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using netns::exec::redact;
  std::string_view text = netns::fuzz::as_text(data, size);
  std::string once = redact(text);
  NETNS_FUZZ_CHECK(once == text || once.find(netns::exec::kRedacted) != std::string::npos);

  // Split the input in two for the surroundings.
  std::string_view a = text.substr(0, text.size() / 2);
  std::string_view b = text.substr(text.size() / 2);
  if (a.find(kSecret) != std::string_view::npos || b.find(kSecret) != std::string_view::npos)
    return 0;
  const std::vector<std::string> forms{
      "--key " + kSecret,    "--key=" + kSecret,
      "-osecret=" + kSecret, "-o name=a,secret=" + kSecret + ",ro",
      "\tkey = " + kSecret,
  };
  for (const auto& form : forms) {
    std::string planted = before(a) + form + after(b);
    NETNS_FUZZ_CHECK(!leaks(redact(planted)));
  }
  // Known from the argv: hidden even when quoted in arbitrary text.
  std::vector<std::string> known = netns::exec::secrets_of_argv({"rbd", "--key", kSecret});
  std::string anywhere = std::string(a) + kSecret + std::string(b);
  NETNS_FUZZ_CHECK(!leaks(redact(anywhere, known)));
  return 0;
}
