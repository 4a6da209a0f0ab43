#pragma once
// The environment variables netns-exec honours, each with the values its
// documentation gives. A value outside them is refused (125, naming the
// variable and what it allows) instead of being read as a default or as an
// undocumented mode: `NETNS_EXEC_IDENTITY=off` in a plugin's environment
// must not switch the holder check off. Every form of the CLI that reads the
// environment calls these; a new variable is one more entry here.
#include "netns_exec/source.hpp"

namespace netns::cli {

// NETNS_EXEC_IDENTITY: unset or empty gives `fallback`; `require` or
// `if-present` (the opt-in for record-less, Rook-era holders) that policy.
// Anything else, `off` included, throws Errc::invalid_argument.
exec::IdentityPolicy identity_from_environment(exec::IdentityPolicy fallback);

}  // namespace netns::cli
