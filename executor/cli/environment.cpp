#include "environment.hpp"

#include <cstdlib>
#include <string_view>

#include "netns/error.hpp"

namespace netns::cli {

exec::IdentityPolicy identity_from_environment(exec::IdentityPolicy fallback) {
  constexpr const char* kName = "NETNS_EXEC_IDENTITY";
  const char* value = ::getenv(kName);
  if (value == nullptr || *value == '\0') return fallback;
  const std::string_view text(value);
  if (text == "require") return exec::IdentityPolicy::require;
  if (text == "if-present") return exec::IdentityPolicy::if_present;
  // `off` is the CLI's --identity off, a deliberate per-command choice; from
  // an environment that every call inherits it is not offered.
  throw Error(
      Errc::invalid_argument,
      std::string("environment variable ") + kName + "=" + quote(text) +
          " is not allowed: its values are \"require\" and \"if-present\" (or unset)",
      std::string("unset ") + kName + ", or set it to if-present to accept record-less holders");
}

bool allow_unrecorded_from_environment() {
  constexpr const char* kName = "NETNS_EXEC_ALLOW_UNRECORDED_NETNS";
  const char* value = ::getenv(kName);
  if (value == nullptr || *value == '\0') return false;
  const std::string_view text(value);
  if (text == "1") return true;
  if (text == "0") return false;
  throw Error(
      Errc::invalid_argument,
      std::string("environment variable ") + kName + "=" + quote(text) +
          " is not allowed: its values are \"1\" (use a namespace file no holder record vouches "
          "for) and \"0\" (or unset)",
      std::string("unset ") + kName + ", or set it to 1");
}

}  // namespace netns::cli
