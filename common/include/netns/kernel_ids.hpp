#pragma once
// Identities the kernel never hands out twice in one boot, where it has them.
// A pid, a start time in clock ticks and a namespace inode number are all
// reused (a pid and its tick by a process started within 10 ms of the exit,
// an nsfs inode once the namespace is freed); these are not:
//   - the inode of a pidfd on pidfs (Linux 6.9+): one per process, 64 bits;
//   - a network namespace's cookie (SO_NETNS_COOKIE, Linux 5.14+, read from a
//     socket created in it), which is also what NS_GET_ID returns for a
//     network namespace's nsfs descriptor (Linux 6.18+).
// Each helper tests the feature and answers nullopt where the kernel lacks
// it; none compares kernel versions.
#include <cstdint>
#include <optional>

namespace netns {

// NS_GET_ID on a namespace descriptor: nullopt when the kernel has no such
// ioctl (ENOTTY) or refuses it.
std::optional<uint64_t> namespace_cookie_of_fd(int nsfd) noexcept;

// SO_NETNS_COOKIE of a socket created in the calling thread's network
// namespace (the holder's own, when the holder calls it).
std::optional<uint64_t> own_netns_cookie() noexcept;

// The pidfs inode of `pidfd`: nullopt when the pidfd is not on pidfs (before
// Linux 6.9 every pidfd shares one anonymous inode, which identifies nothing).
std::optional<uint64_t> pidfs_inode(int pidfd) noexcept;

}  // namespace netns
