#pragma once
// Namespace identity and validation, always on an open descriptor (never on a
// path, which could be swapped between the check and the use).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "netns/api.h"

namespace netns {

// A namespace is identified by the (device, inode) of its nsfs file.
struct NsId {
  uint64_t dev = 0;
  uint64_t ino = 0;
  friend bool operator==(const NsId&, const NsId&) = default;
};

// Initial namespaces with a fixed inode (include/linux/proc_ns.h). The user
// and pid ones have been fixed since Linux 3.8; the network one since 6.18
// (NET_NS_INIT_INO). Dynamically allocated namespace inodes start at
// 0xF0000000, so on an older kernel no namespace has kInitialNetNsIno and a
// match is always the host's namespace; no match proves nothing there.
inline constexpr uint64_t kInitialPidNsIno = 0xEFFFFFFCu;
inline constexpr uint64_t kInitialUserNsIno = 0xEFFFFFFDu;
inline constexpr uint64_t kInitialNetNsIno = 0xEFFFFFF9u;

// "net:[4026532123]", as readlink /proc/PID/ns/net shows it. The one
// formatter of a namespace identity in messages.
NETNS_EXEC_API std::string ns_text(NsId id, std::string_view type = "net");

NETNS_EXEC_API NsId ns_id_of_fd(int fd, std::string_view shown);

// Throws Errc::not_a_namespace when `fd` is not on nsfs, Errc::wrong_namespace
// when NS_GET_NSTYPE is not CLONE_NEWNET. Returns the namespace's identity.
NETNS_EXEC_API NsId require_netns_fd(int fd, std::string_view shown);

// The calling thread's network namespace (/proc/thread-self/ns/net).
NETNS_EXEC_API NsId current_netns_id();

// The inode in the text of a /proc/PID/ns/net link ("net:[INODE]"), which
// the kernel formats without opening the namespace (half the cost of a stat
// through the link, which resolves it): nullopt if it cannot be read or is
// not a network namespace's. Every namespace is on the one nsfs, so its
// device is that of any namespace descriptor.
NETNS_EXEC_API std::optional<uint64_t> netns_link_ino(const std::string& link);
// The calling process's pid namespace (/proc/self/ns/pid).
NETNS_EXEC_API NsId current_pidns_id();

// "net", "mnt", "pid", ... for a CLONE_NEW* value; "unknown" otherwise.
NETNS_EXEC_API const char* ns_type_name(int nstype) noexcept;

}  // namespace netns
