// Size trims for the static holder. Its RSS is its binary's size (the whole
// text is faulted in at start-up), and two libstdc++ defaults cost more than
// all of the holder's own code:
//
// 1. The default terminate handler prints the demangled type of an uncaught
//    exception, which links the whole C++ demangler (~50 kB). main() catches
//    everything, so terminate means a bug; a plain abort says as much. Defining
//    the handler variable here keeps libstdc++'s eh_term_handler.o (and with it
//    the demangler) out of the link.
// 2. std::__throw_length_error and friends live in one object that drags in
//    the copy-on-write string instantiations and <stdexcept> (~40 kB). They
//    are reached only on programming errors or out of memory, where the holder
//    could do nothing but exit; here they say so on stderr and abort.
//
// If a libstdc++ object needing other __throw_* functions is ever linked, the
// link fails with a duplicate definition: loud, not silent.
// Only built into the static binary (see CMakeLists.txt).
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>

namespace {
[[noreturn]] void die(const char* what) {
  const char prefix[] = "netns-holder: fatal: ";
  (void)!::write(STDERR_FILENO, prefix, sizeof prefix - 1);
  (void)!::write(STDERR_FILENO, what, std::strlen(what));
  (void)!::write(STDERR_FILENO, "\n", 1);
  std::abort();
}
[[noreturn]] void terminate_quietly() { die("uncaught exception (std::terminate)"); }
}  // namespace

namespace __cxxabiv1 {
std::terminate_handler __terminate_handler = terminate_quietly;
}  // namespace __cxxabiv1

namespace std {
void __throw_bad_alloc() { die("out of memory"); }
void __throw_bad_array_new_length() { die("bad array length"); }
void __throw_logic_error(const char* what) { die(what); }
void __throw_length_error(const char* what) { die(what); }
void __throw_out_of_range_fmt(const char* what, ...) { die(what); }
}  // namespace std
