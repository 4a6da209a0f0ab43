#pragma once
// Per-volume serialization across processes: an exclusive flock on one file
// per volume in a node-wide directory. Two `netns-exec map` processes for the
// same image (ceph-csi retrying a NodeStage while the first is still running,
// two identical requests back to back) then run one after the other, and the
// second sees what the first did. Threads of one process are serialized the
// same way: each acquire opens the file anew, and an flock belongs to that
// open file description, not to the process.
#include <string>
#include <string_view>

#include "netns/unique_fd.hpp"

namespace netns::ceph::detail {

class VolumeLock {
 public:
  // Blocks until the lock for `volume_key` in `dir` is held. An empty `dir`
  // gives an empty lock (no cross-process serialization). Throws
  // netns::Error naming the lock file when it cannot be created or locked.
  static VolumeLock acquire(const std::string& dir, std::string_view volume_key);

  // The lock file's name for a key: readable where the key allows it, and
  // unique by a hash of the whole key ("rbd/img" and "rbd_img" differ).
  static std::string file_name(std::string_view volume_key);

 private:
  UniqueFd fd_;  // closing it releases the lock
};

}  // namespace netns::ceph::detail
