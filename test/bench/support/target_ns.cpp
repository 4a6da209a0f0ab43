#include "netns/bench/target_ns.hpp"

#include <fcntl.h>

#include <memory>

#include "netns/fd.hpp"
#include "netns/test/support.hpp"

namespace netns::bench {

namespace {

struct Holder {
  test::NetnsChild child;
  UniqueFd fd;
  TargetNs ns;
  Holder() : fd(open_fd(child.ns_path(), O_RDONLY)), ns{child.ns_path(), fd.get(), child.pid()} {}
};

}  // namespace

const TargetNs& target_ns() {
  // Destroyed at exit: closes the fd, then kills and reaps the child.
  static Holder holder;
  return holder.ns;
}

}  // namespace netns::bench
