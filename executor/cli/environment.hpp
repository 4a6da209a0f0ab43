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

// NETNS_EXEC_ALLOW_UNRECORDED_NETNS: `1` is the in-place forms' spelling of
// --allow-unrecorded-netns (a namespace file no holder record vouches for,
// such as /run/netns/NAME or /proc/PID/ns/net, is used); unset, empty or `0`
// leaves such a file refused. Anything else throws Errc::invalid_argument.
bool allow_unrecorded_from_environment();

}  // namespace netns::cli
