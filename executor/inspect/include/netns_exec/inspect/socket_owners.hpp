#pragma once
// Which sockets no process holds. sock_diag reports a socket's inode, but not
// whether any process has it open: the kernel's own sockets (the krbd and
// CephFS client sessions, a vxlan link's UDP socket) have an inode too on
// current kernels, and only the absence of any "socket:[INODE]" descriptor
// in /proc/*/fd tells them apart. Inode 0 (TIME_WAIT, request sockets) is
// never held by a process.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace netns::inspect {

// For each inode in `wanted`, the pid of one process (visible in `proc`) that
// holds it. Inodes missing from the result are held by no visible process.
// Stops early once every wanted inode is found. Processes that vanish or
// deny access during the scan are skipped.
std::unordered_map<uint64_t, pid_t> find_socket_owners(const std::unordered_set<uint64_t>& wanted,
                                                       const std::string& proc = "/proc");

}  // namespace netns::inspect
