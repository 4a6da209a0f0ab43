#include "netns/bench/ballast.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "netns/error.hpp"
#include "netns/fd.hpp"

namespace netns::bench {

Ballast::~Ballast() { resize(0); }

void Ballast::resize(size_t bytes) {
  if (bytes == size_) return;
  if (base_ != nullptr) ::munmap(base_, size_);
  base_ = nullptr;
  size_ = 0;
  if (bytes == 0) return;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw Error::sys("mmap", std::to_string(bytes) + " bytes of ballast", errno);
  // One write per page makes it resident; distinct values keep the kernel
  // from sharing anything.
  auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  auto* bytes_p = static_cast<unsigned char*>(p);
  for (size_t off = 0; off < bytes; off += page)
    bytes_p[off] = static_cast<unsigned char>(off >> 12);
  base_ = p;
  size_ = bytes;
}

Ballast& shared_ballast() {
  static Ballast ballast;
  return ballast;
}

size_t current_rss_bytes() {
  std::string status = read_file("/proc/self/status");
  auto pos = status.find("VmRSS:");
  if (pos == std::string::npos) return 0;
  return static_cast<size_t>(std::stoull(status.substr(pos + 6))) * 1024;
}

}  // namespace netns::bench
