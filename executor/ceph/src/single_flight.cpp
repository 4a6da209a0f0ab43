#include "single_flight.hpp"

#include <exception>

namespace netns::ceph::detail {

SingleFlight::Landing SingleFlight::run(const std::string& key, const std::string& fingerprint,
                                        const std::function<OperationResult()>& work) {
  for (;;) {
    std::unique_lock lock(mutex_);
    auto it = flights_.find(key);
    if (it == flights_.end()) {
      std::promise<std::shared_ptr<const OperationResult>> promise;
      auto flight = std::make_shared<Flight>();
      flight->fingerprint = fingerprint;
      flight->landed = promise.get_future().share();
      flights_.emplace(key, flight);
      lock.unlock();

      // The flight is removed before it lands: whoever finds no flight after
      // that starts a new one (the work is done; a new request means new
      // work), while those already holding the future get this result.
      auto land = [&] {
        std::lock_guard relock(mutex_);
        flights_.erase(key);
      };
      std::shared_ptr<const OperationResult> result;
      try {
        result = std::make_shared<const OperationResult>(work());
      } catch (...) {
        land();
        promise.set_exception(std::current_exception());
        throw;
      }
      land();
      promise.set_value(result);
      return Landing{std::move(result), false};
    }

    std::shared_ptr<Flight> flight = it->second;
    lock.unlock();
    if (flight->fingerprint == fingerprint) return Landing{flight->landed.get(), true};
    // Same volume, different request: one at a time.
    flight->landed.wait();
  }
}

}  // namespace netns::ceph::detail
