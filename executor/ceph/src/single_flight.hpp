#pragma once
// Per-key serialization with sharing of identical work.
//
// One flight per key at a time. A request whose fingerprint equals the
// flight in progress joins it: it does not run, and gets the same result (or
// exception). A request with a different fingerprint waits for the flight
// to land, then competes to start its own. Different keys never wait for
// each other.
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "netns_exec/ceph.hpp"

namespace netns::ceph::detail {

class SingleFlight {
 public:
  struct Landing {
    std::shared_ptr<const OperationResult> result;
    bool shared = false;  // joined someone else's flight
  };

  Landing run(const std::string& key, const std::string& fingerprint,
              const std::function<OperationResult()>& work);

 private:
  struct Flight {
    std::string fingerprint;
    std::shared_future<std::shared_ptr<const OperationResult>> landed;
  };

  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Flight>> flights_;
};

}  // namespace netns::ceph::detail
