// Source -> one validated namespace descriptor. Every refusal leaves here as a
// netns::Error that names the cluster and/or path, the step that failed, the
// errno text where there is one, and what to check.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <optional>

#include "identity.hpp"
#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/duration.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/fd_passing.hpp"
#include "netns_exec/source.hpp"
#include "wait_path.hpp"

namespace netns::exec {

namespace {

using detail::split_path;
using detail::wait_for_path;

constexpr std::string_view kLinkSuffix = ".net.ns";
constexpr std::string_view kSocketSuffix = ".net.sock";
// A holder that accepted the connection answers at once; this bounds one that
// does not (it must never hang the plugin).
constexpr std::chrono::seconds kSocketReplyTimeout{5};

// The cluster ID a holder file name implies ("ceph-a.net.ns" -> "ceph-a").
std::string id_from_name(const std::string& name, std::string_view suffix) {
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(),
                                                   suffix) != 0)
    return {};
  std::string id = name.substr(0, name.size() - suffix.size());
  return cluster_id_problem(id) ? std::string() : id;
}

std::string waited_text(std::chrono::nanoseconds wait) {
  return wait.count() > 0 ? " (after waiting " + format_duration(wait) + ")" : std::string();
}

// A step name on the way up: "open namespace file: open "/x": ENOENT ...".
struct Step {
  const char* name;
};

template <typename F>
auto in_step(Step step, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (Error& e) {
    e.context(step.name);
    throw;
  }
}

// The file is missing: say how (directory, dangling link, plain missing).
[[noreturn]] void throw_missing(const std::string& path, std::chrono::nanoseconds wait) {
  auto [dir, name] = split_path(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    Error e = Error::sys("open", dir, ENOENT, {}, Errc::not_found);
    e.context("directory of " + quote(path) + " does not exist" + waited_text(wait));
    throw e;
  }
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char target[4096];
    ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    std::string to = n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string("?");
    Error e = Error::sys("open", path, ENOENT, {}, Errc::stale_holder);
    e.context("dangling symlink to " + quote(to) + ": the holder process it names is gone" +
              waited_text(wait));
    throw e;
  }
  Error e = Error::sys("open", path, ENOENT, {}, Errc::not_found);
  if (wait.count() > 0) e.context("not published" + waited_text(wait));
  throw e;
}

// One connect attempt to the holder socket at `address` (`shown` in
// messages). False, with `last_err` set, for what is worth waiting for: not
// there yet, or left behind by a holder that is gone (a restarted holder
// replaces it).
bool try_connect(UniqueFd& sock, const std::string& address, const std::string& shown,
                 int& last_err) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (address.empty() || address.size() >= sizeof addr.sun_path)
    throw Error(Errc::invalid_argument,
                "socket path " + quote(shown) + " is empty or longer than " +
                    std::to_string(sizeof addr.sun_path - 1) + " bytes");
  std::memcpy(addr.sun_path, address.data(), address.size());
  sock = make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
  int rc;
  do {
    rc = ::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) return true;
  last_err = errno;
  sock.reset();
  if (last_err == ENOENT || last_err == ECONNREFUSED) return false;
  throw Error::sys("connect", shown, last_err);
}

[[noreturn]] void throw_not_connected(const std::string& path, int last_err,
                                      std::chrono::nanoseconds wait) {
  Error e = Error::sys("connect", path, last_err, {}, Errc::not_found);
  if (last_err == ECONNREFUSED)
    e.context("no holder is listening behind the socket" + waited_text(wait));
  else if (wait.count() > 0)
    e.context("not published" + waited_text(wait));
  e.context("connect to holder socket");
  throw e;
}

// Receives the namespace over a connected holder socket and validates it:
// a network namespace, the one the header announces, for the cluster each
// non-empty entry of `expected_ids` names (the file name's <ID>, the ID asked
// about), and not our own.
ResolvedNamespace receive_namespace(const UniqueFd& sock, const std::string& path,
                                    std::initializer_list<std::string> expected_ids,
                                    const ResolveOptions& options) {
  ReceivedFd received = in_step(Step{"receive namespace from holder"}, [&] {
    pollfd pfd{sock.get(), POLLIN, 0};
    int n;
    do {
      n = ::poll(&pfd, 1, static_cast<int>(std::chrono::milliseconds(kSocketReplyTimeout).count()));
    } while (n < 0 && errno == EINTR);
    if (n < 0) throw Error::sys("poll", path, errno);
    if (n == 0)
      throw Error::sys("recvmsg", path, ETIMEDOUT, "is the netns-holder behind this socket hung?",
                       Errc::timeout);
    return receive_fd(sock.get(), path);
  });

  ResolvedNamespace out;
  out.path = path;
  out.cluster_id = received.header.cluster_id;
  out.id = in_step(Step{"check namespace type"},
                   [&] { return require_netns_fd(received.fd.get(), path); });
  // Socket mode needs no record: the holder itself just handed us the fd over
  // a live connection. What it says must still match what it sent.
  for (const std::string& expected : expected_ids)
    if (options.identity != IdentityPolicy::off && !expected.empty() &&
        received.header.cluster_id != expected)
      throw Error(Errc::identity_mismatch,
                  "check holder identity: holder socket " + quote(path) + " speaks for cluster " +
                      quote(received.header.cluster_id) + ", not " + quote(expected));
  if (out.id != received.header.netns)
    throw Error(Errc::identity_mismatch,
                "check holder identity: holder socket " + quote(path) + " announced net:[" +
                    std::to_string(received.header.netns.ino) + "] but sent net:[" +
                    std::to_string(out.id.ino) + "]");
  if (!options.allow_own_netns && out.id == current_netns_id())
    throw Error(Errc::own_namespace,
                "check not own namespace: holder socket " + quote(path) +
                    " sent this process's own network namespace",
                "is the holder running with the plugin's network (hostNetwork on both)? "
                "(--allow-own-netns permits this deliberately)");
  out.fd = std::move(received.fd);
  return out;
}

ResolvedNamespace open_namespace_file(const std::string& path, const std::string& cluster_id,
                                      const ResolveOptions& options) {
  if (path.empty() || path.back() == '/')
    throw Error(Errc::invalid_argument, "namespace file path " + quote(path) + " names no file");
  // Not a structured binding: the lambdas below capture these, which clang
  // before 16 rejects (the libFuzzer build uses Debian's clang 14).
  const auto split = split_path(path);
  const std::string& dir = split.first;
  const std::string& name = split.second;

  // The directory is opened once and both the link and the record are read
  // relative to it, so they come from the same directory even if the path is
  // renamed meanwhile.
  UniqueFd dirfd;
  UniqueFd fd;
  UniqueFd sock;  // set instead of fd when the path is a holder's socket
  int sock_err = 0;
  bool found = in_step(Step{"open namespace file"}, [&] {
    return wait_for_path(path, options.wait_holder, [&] {
      sock_err = 0;  // what the last attempt found is what is reported
      try {
        dirfd = open_fd(dir, O_PATH | O_DIRECTORY);
      } catch (Error& e) {
        if (e.sys_errno() == ENOENT) return false;
        throw;
      }
      // O_PATH first: it opens anything without side effects (a FIFO or a
      // terminal cannot block or adopt us, a socket does not fail with
      // ENXIO), and what it opened is then looked at, not the path again,
      // which may be replaced meanwhile.
      auto opened = open_at_if_exists(dirfd.get(), name, O_PATH, path);
      if (!opened) return false;
      struct stat st {};
      if (::fstat(opened->get(), &st) != 0) throw Error::sys("fstat", path, errno);
      const std::string self = "/proc/self/fd/" + std::to_string(opened->get());
      if (S_ISSOCK(st.st_mode)) {
        // Socket mode through a path (ceph-csi's netNamespaceFilePath, its
        // nsenter --net=): connect through the O_PATH descriptor, so to the
        // socket just checked, and with no 108-byte sun_path limit.
        return try_connect(sock, self, path, sock_err);
      }
      // O_RDONLY as setns needs; O_NONBLOCK|O_NOCTTY as above, for whatever
      // the nsfs check is about to reject.
      try {
        fd = open_fd(self, O_RDONLY | O_NONBLOCK | O_NOCTTY);
      } catch (Error& e) {
        throw Error::sys("open", path, e.sys_errno());
      }
      return true;
    });
  });
  if (sock || sock_err != 0) {
    if (!found) throw_not_connected(path, sock_err, options.wait_holder);
    return receive_namespace(sock, path, {cluster_id, id_from_name(name, kSocketSuffix)}, options);
  }

  // Which record speaks for this file: the one named after the link, else the
  // one for the cluster we were asked about.
  std::string record_id = id_from_name(name, kLinkSuffix);
  if (record_id.empty()) record_id = cluster_id;
  const std::string expected_id = cluster_id.empty() ? record_id : cluster_id;
  const std::string record_name = record_id.empty() ? std::string() : holder_file_names(record_id).record;
  const std::string record_shown = join_path(dir, record_name);

  // The record's origin before the link's target: from a holder in another
  // pid namespace the link's /proc/<pid> is another process, or none, for
  // us, and "dangling" or "own namespace" would mislead.
  if (options.identity != IdentityPolicy::off && dirfd && !record_id.empty()) {
    std::optional<HolderRecord> early;
    try {
      early = read_record_at(dirfd.get(), record_name, record_shown);
    } catch (Error&) {
      // Unreadable or malformed: the full check below reports it.
    }
    if (early)
      in_step(Step{"check holder identity"},
              [&] { detail::check_record_origin(*early, expected_id, record_shown); });
  }
  if (!found) {
    in_step(Step{"open namespace file"}, [&] { throw_missing(path, options.wait_holder); });
  }

  ResolvedNamespace out;
  out.path = path;
  out.id = in_step(Step{"check namespace type"}, [&] { return require_netns_fd(fd.get(), path); });
  if (!options.allow_own_netns && out.id == current_netns_id()) {
    throw Error(Errc::own_namespace,
                "check not own namespace: " + quote(path) +
                    " is this process's own network namespace: work done there would die with "
                    "the caller, which is what the holder is for",
                "is the link published by the netns-holder pod, not by the plugin itself? "
                "(--allow-own-netns permits this deliberately)");
  }

  out.cluster_id = expected_id;
  if (options.identity != IdentityPolicy::off) {
    in_step(Step{"check holder identity"}, [&] {
      if (record_id.empty()) {
        if (options.identity == IdentityPolicy::require)
          throw Error(Errc::not_found,
                      "no holder record can belong to " + quote(path) +
                          ": the name is not <ID>.net.ns and no cluster ID was given",
                      "use the holder's <ID>.net.ns link, or --identity if-present");
        return;
      }
      const std::string& shown = record_shown;
      auto record = read_record_at(dirfd.get(), record_name, shown);
      if (!record) {
        if (options.identity == IdentityPolicy::require)
          throw Error::sys("open", shown, ENOENT, {}, Errc::not_found);
        return;
      }
      detail::check_record(*record, out.cluster_id, out.id, shown);
      out.record = std::move(*record);
    });
  }
  out.fd = std::move(fd);
  return out;
}

ResolvedNamespace from_socket(const std::string& path, const ResolveOptions& options) {
  UniqueFd sock;
  int last_err = 0;
  bool connected = in_step(Step{"connect to holder socket"}, [&] {
    return wait_for_path(path, options.wait_holder,
                         [&] { return try_connect(sock, path, path, last_err); });
  });
  if (!connected) throw_not_connected(path, last_err, options.wait_holder);
  return receive_namespace(sock, path, {id_from_name(split_path(path).second, kSocketSuffix)},
                           options);
}

std::string default_hint(const std::string& cluster_id, const std::string& path) {
  if (!cluster_id.empty())
    return "is the netns-holder pod for cluster " + quote(cluster_id) + " running on this node?";
  return "is the netns-holder pod that publishes " + quote(path) + " running on this node?";
}

}  // namespace

ResolvedNamespace resolve(const Source& source, const ResolveOptions& options) {
  std::string cluster_id = source.cluster_id;
  std::string path = source.path;
  try {
    switch (source.kind) {
      case Source::Kind::path:
        cluster_id = id_from_name(split_path(path).second, kLinkSuffix);
        if (cluster_id.empty()) cluster_id = id_from_name(split_path(path).second, kSocketSuffix);
        return open_namespace_file(path, cluster_id, options);
      case Source::Kind::socket:
        cluster_id = id_from_name(split_path(path).second, kSocketSuffix);
        return from_socket(path, options);
      case Source::Kind::cluster: {
        path = in_step(Step{"look up cluster in ceph-csi config"}, [&] {
          return lookup_netns_path(source.config, source.cluster_id, source.config_kind);
        });
        if (path.empty()) {
          ResolvedNamespace own;
          own.own_namespace = true;
          own.cluster_id = source.cluster_id;
          own.id = current_netns_id();
          return own;
        }
        return open_namespace_file(path, source.cluster_id, options);
      }
    }
    throw Error(Errc::invalid_argument, "unknown namespace source kind");
  } catch (Error& e) {
    e.default_hint(default_hint(cluster_id, path));
    if (source.kind == Source::Kind::cluster) {
      e.context("cluster " + quote(source.cluster_id));
    } else if (!cluster_id.empty()) {
      e.context("cluster " + quote(cluster_id));
    }
    throw;
  }
}

}  // namespace netns::exec
