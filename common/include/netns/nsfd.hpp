#pragma once
// Namespace identity and validation, always on an open descriptor (never on a
// path, which could be swapped between the check and the use).
#include <cstdint>
#include <string>
#include <string_view>

namespace netns {

// A namespace is identified by the (device, inode) of its nsfs file.
struct NsId {
  uint64_t dev = 0;
  uint64_t ino = 0;
  friend bool operator==(const NsId&, const NsId&) = default;
};

// The initial pid namespace has this fixed inode (PROC_PID_INIT_INO).
inline constexpr uint64_t kInitialPidNsIno = 0xEFFFFFFCu;

NsId ns_id_of_fd(int fd, std::string_view shown);

// Throws Errc::not_a_namespace when `fd` is not on nsfs, Errc::wrong_namespace
// when NS_GET_NSTYPE is not CLONE_NEWNET. Returns the namespace's identity.
NsId require_netns_fd(int fd, std::string_view shown);

// The calling thread's network namespace (/proc/thread-self/ns/net).
NsId current_netns_id();
// The calling process's pid namespace (/proc/self/ns/pid).
NsId current_pidns_id();

// "net", "mnt", "pid", ... for a CLONE_NEW* value; "unknown" otherwise.
const char* ns_type_name(int nstype) noexcept;

}  // namespace netns
