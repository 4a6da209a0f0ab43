// The socket-mode header a holder (or anything listening on <ID>.net.sock)
// sends with the namespace fd. Property: the decoder is strict enough that an
// accepted header is the canonical encoding of what it decoded.
#include <string>

#include "fuzz_target.hpp"
#include "netns/fd_passing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return netns::fuzz::rejecting_errors([&] {
    std::string_view bytes = netns::fuzz::as_text(data, size);
    netns::FdHeader header = netns::decode_fd_header(bytes);
    NETNS_FUZZ_CHECK(netns::encode_fd_header(header) == bytes);
  });
}
