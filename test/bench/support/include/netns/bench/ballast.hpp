#pragma once
// Caller memory for the RSS figure: an anonymous mapping whose every page is
// touched, so the caller's resident set (and page tables) really has that size.
// Transparent huge pages are left at the system default (usually "madvise",
// i.e. off for this mapping), as for a typical Go or C++ caller.
#include <cstddef>

namespace netns::bench {

class Ballast {
 public:
  Ballast() = default;
  ~Ballast();
  Ballast(const Ballast&) = delete;
  Ballast& operator=(const Ballast&) = delete;

  // Maps and touches `bytes` (replacing any earlier mapping). No-op when the
  // size is unchanged.
  void resize(size_t bytes);
  [[nodiscard]] size_t size() const { return size_; }

 private:
  void* base_ = nullptr;
  size_t size_ = 0;
};

// The process-wide ballast the RSS benchmarks share, so a size is mapped and
// touched once per run of consecutive benchmarks of that size.
Ballast& shared_ballast();

// VmRSS of this process in bytes (from /proc/self/status).
size_t current_rss_bytes();

}  // namespace netns::bench
