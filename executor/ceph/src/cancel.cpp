// Cancellation that never leaves half a mapping. A killed `rbd map` can
// leave a device nobody knows about, or a kernel client that later maps
// fail against (Ceph blocklists a client that vanished mid-handshake), and
// a killed `mount` a mount point in use by nobody. So a started command is
// let finish (Command::finish_grace), and whatever it made is undone here,
// before the caller hears "cancelled".
#include "cancel.hpp"
#include <csignal>

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <utility>

#include "classify.hpp"
#include "netns/error.hpp"
#include "netns/join.hpp"
#include "netns_exec/spawn/spawn.hpp"

namespace netns::ceph {

bool Cancellation::fired() const noexcept {
  if (fd < 0) return false;
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

const char* cancel_name(Cancel cancel) noexcept {
  switch (cancel) {
    case Cancel::none:
      return "none";
    case Cancel::not_started:
      return "not_started";
    case Cancel::undone:
      return "undone";
    case Cancel::nothing_left:
      return "nothing_left";
    case Cancel::left_behind:
      return "left_behind";
    case Cancel::completed:
      return "completed";
  }
  return "unknown";
}

namespace detail {

namespace {

std::string command_line(const std::vector<std::string>& argv) { return join(argv, " "); }

// Whether the command ended by itself (within the grace), not by our signal.
bool finished_by_itself(const spawn::Outcome& o) {
  return o.kind != spawn::Outcome::Kind::cancelled && o.kind != spawn::Outcome::Kind::timed_out;
}

}  // namespace

std::chrono::nanoseconds undo_bound(const Settings& settings) {
  return std::max(
      {settings.timeout, settings.cancel_grace, std::chrono::nanoseconds(kMinUndoBound)});
}

OperationResult not_started(std::string_view what, const std::vector<std::string>& argv) {
  OperationResult r;
  r.failure = Failure::cancelled;
  r.cancel = Cancel::not_started;
  r.message = redact(std::string(what) + ": cancelled before the command started; nothing ran");
  r.argv = redact_argv(argv);
  r.process.outcome = spawn::Outcome::spawn_failed(spawn::Stage::prepare, ECANCELED);
  return r;
}

void settle(OperationResult& r, std::string_view what, const Settings& settings,
            const Target& target, const Undo& undo) {
  const bool timeout = r.process.stop == spawn::StopRequest::timeout;
  const spawn::Outcome& o = r.process.outcome;
  std::string head =
      std::string(what) + ": " + (timeout ? "timed out" : "cancelled") +
      " while the command ran; it " +
      (finished_by_itself(o) ? o.describe() + " within the grace"
                             : std::string(o.signal == SIGKILL ? "was stopped at the hard bound ("
                                                               : "was stopped after the grace (") +
                                   o.describe() + ")");
  const std::string hint = timeout ? "; check: is the Ceph cluster reachable "
                                     "from the target network namespace? "
                                     "netns-exec doctor checks it"
                                   : "";

  if (!undo.made) {
    // unmap / umount: the caller wanted it gone, and a finished command is
    // its own answer; only one we had to kill leaves the state unknown.
    if (finished_by_itself(o)) {
      r.cancel = Cancel::completed;
      return;
    }
    r.failure = timeout ? Failure::timed_out : Failure::cancelled;
    r.cancel = Cancel::left_behind;
    r.message = redact(head + "; it may not have finished" + hint);
    return;
  }

  r.failure = timeout ? Failure::timed_out : Failure::cancelled;
  std::optional<std::string> made = undo.made(r);
  if (!made) {
    r.cancel = Cancel::nothing_left;
    r.message = redact(head + "; nothing was left " + std::string(undo.state) + hint);
    return;
  }
  // Not cancellable itself (it is the way back), but bounded like any
  // command: SIGTERM, kill_grace, SIGKILL. Not by what is left of the
  // caller's timeout, though: the timeout that stopped a map is spent, and
  // a short one (seen in the kernel suite: `--timeout 1ms`) would kill the
  // rbd unmap it has just made necessary. So the undo gets the longest of
  // the timeout, the cancel grace and kMinUndoBound.
  spawn::Command c;
  c.argv = undo.argv(*made);
  c.env = settings.env;
  c.netns_fd = target.netns_fd;
  c.timeout = undo_bound(settings);
  c.kill_grace = settings.kill_grace;
  spawn::Result u = spawn::run(c);
  r.undo_argv = redact_argv(c.argv);
  if (u.outcome.success()) {
    r.cancel = Cancel::undone;
    r.message = redact(head + "; " + *made + ", which it " + std::string(undo.state) +
                       ", was undone (" + command_line(r.undo_argv) + ")" + hint);
    return;
  }
  r.cancel = Cancel::left_behind;
  r.leftover = *made;
  std::string excerpt = output_excerpt(u);
  r.message = redact(head + "; " + *made + " is still " + std::string(undo.state) + ": " +
                     command_line(r.undo_argv) + " " + u.outcome.describe() +
                     (excerpt.empty() ? "" : ": " + excerpt) + "; check: run " +
                     quote(command_line(r.undo_argv)) + " on this node");
}

}  // namespace detail

}  // namespace netns::ceph
