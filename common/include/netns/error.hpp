#pragma once
// Typed errors. Every error says what failed (the syscall or step), on what
// (a quoted path or cluster ID), why (errno text and name) and, where we can
// tell, what to check. Context is prepended on the way up:
//   cluster "ceph-a": validate "/x/ceph-a.net.ns": open: No such file or directory (ENOENT)
#include <exception>
#include <string>
#include <string_view>

#include "netns/api.h"

namespace netns {

enum class Errc {
  invalid_argument,   // bad user input: cluster ID, flag value, config content
  not_found,          // a file, cluster or holder that should exist does not
  not_a_namespace,    // the file is not on nsfs
  wrong_namespace,    // a namespace, but not a network namespace
  own_namespace,      // the caller's own network namespace
  identity_mismatch,  // the holder record does not describe what was opened
  stale_holder,       // the holder named by the record is gone
  busy,               // another holder owns the lock
  protocol,           // a peer sent something we do not understand
  unsupported,        // a record or header version we do not know
  timeout,
  system,     // any other failed syscall
  untrusted,  // a file or peer not owned by root (or a named uid), or a writable directory
};

NETNS_EXEC_API const char* errc_name(Errc code) noexcept;

class NETNS_EXEC_API Error : public std::exception {
 public:
  Error(Errc code, std::string message, std::string hint = {});

  // A failed system call: `syscall` ("open", "setns"), the object it acted on
  // (a path, or a description such as "holder socket"), and errno.
  static Error sys(std::string_view syscall, std::string_view object, int err,
                   std::string hint = {}, Errc code = Errc::system);

  [[nodiscard]] Errc code() const noexcept { return code_; }
  [[nodiscard]] int sys_errno() const noexcept { return errno_; }
  [[nodiscard]] const std::string& message() const noexcept { return what_; }
  [[nodiscard]] const std::string& hint() const noexcept { return hint_; }

  // Prefixes "ctx: " to the message. Returns *this so callers can rethrow.
  Error& context(std::string_view ctx);
  // Sets the hint if none is set yet (the innermost, most specific hint wins).
  Error& default_hint(std::string_view hint);

  [[nodiscard]] const char* what() const noexcept override { return what_.c_str(); }
  // The message plus "; check: <hint>" when there is a hint: one line for logs.
  [[nodiscard]] std::string describe() const;

 private:
  Errc code_;
  int errno_ = 0;
  std::string what_;
  std::string hint_;
};

// "No such file or directory (ENOENT)"
NETNS_EXEC_API std::string errno_text(int err);

// Quotes untrusted text for a message: printable ASCII kept, everything else
// escaped (\n, \x1b, ...), surrounded by double quotes.
NETNS_EXEC_API std::string quote(std::string_view text);

}  // namespace netns
