// libmnl, loaded on first use instead of at every start. Only `inspect`'s
// sock_diag needs it, yet as a DT_NEEDED library ld.so maps and relocates it
// for every `netns-exec --net=P -- cmd` too: about 50 µs of a 1.4 ms start
// (issue 13, paired rounds; the figure-7 goal is nsenter's own cost). These
// definitions satisfy the linker, so --as-needed drops libmnl.so from the
// binary; each forwards to the real function, resolved with dlopen/dlsym
// once (thread-safe). A libmnl that cannot be loaded is a netns::Error naming
// the library, as any other failed step of inspect. Image builders find the
// library through the "netns-dlopen:" marker below.
#include <dlfcn.h>
#include <libmnl/libmnl.h>

#include <mutex>
#include <string>

#include "netns/error.hpp"

// For image builders that copy what `ldd` lists (manifests/images/rootfs.sh):
// ldd cannot see a dlopen, so the binary names it in this marker string.
[[gnu::used]] static const char kDlopenMarker[] = "netns-dlopen:libmnl.so.0";

namespace {

constexpr const char* kLibmnl = "libmnl.so.0";

void* libmnl() {
  static void* handle = nullptr;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    handle = ::dlopen(kLibmnl, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* e = ::dlerror();
      error = e != nullptr ? e : "unknown error";
    }
  });
  if (handle == nullptr)
    throw netns::Error(netns::Errc::system,
                       std::string("dlopen ") + netns::quote(kLibmnl) + ": " + error,
                       "is libmnl0 installed in this image? netns-exec inspect needs it");
  return handle;
}

template <typename F>
F resolve(const char* name) {
  void* sym = ::dlsym(libmnl(), name);
  if (sym == nullptr)
    throw netns::Error(
        netns::Errc::system,
        std::string("dlsym ") + name + " in " + netns::quote(kLibmnl) + ": not found",
        "is the installed libmnl at least 1.0.4?");
  return reinterpret_cast<F>(sym);
}

#define NETNS_MNL_FORWARD(ret, name, params, args)          \
  extern "C" ret name params {                              \
    static const auto real = resolve<ret(*) params>(#name); \
    return real args;                                       \
  }

}  // namespace

NETNS_MNL_FORWARD(struct mnl_socket*, mnl_socket_fdopen, (int fd), (fd))
NETNS_MNL_FORWARD(int, mnl_socket_close, (struct mnl_socket * nl), (nl))
NETNS_MNL_FORWARD(unsigned int, mnl_socket_get_portid, (const struct mnl_socket* nl), (nl))
NETNS_MNL_FORWARD(ssize_t, mnl_socket_sendto,
                  (const struct mnl_socket* nl, const void* req, size_t siz), (nl, req, siz))
NETNS_MNL_FORWARD(ssize_t, mnl_socket_recvfrom,
                  (const struct mnl_socket* nl, void* buf, size_t siz), (nl, buf, siz))
NETNS_MNL_FORWARD(size_t, mnl_nlmsg_get_payload_len, (const struct nlmsghdr* nlh), (nlh))
NETNS_MNL_FORWARD(struct nlmsghdr*, mnl_nlmsg_put_header, (void* buf), (buf))
NETNS_MNL_FORWARD(void*, mnl_nlmsg_put_extra_header, (struct nlmsghdr * nlh, size_t size),
                  (nlh, size))
NETNS_MNL_FORWARD(void*, mnl_nlmsg_get_payload, (const struct nlmsghdr* nlh), (nlh))
NETNS_MNL_FORWARD(int, mnl_cb_run,
                  (const void* buf, size_t numbytes, unsigned int seq, unsigned int portid,
                   mnl_cb_t cb_data, void* data),
                  (buf, numbytes, seq, portid, cb_data, data))
