#pragma once
// The network namespace the benchmarks spawn into, published as a holder
// publishes it: a throw-away namespace held by a child this process created
// (netns::test::NetnsChild, killed by PID at exit), and in a private temporary
// directory the holder's files for it, record first, then the link:
//   <dir>/bench.holder.json   the identity record (pid, start time, inodes)
//   <dir>/bench.net.ns        symlink to /proc/<child>/ns/net
// so a caller given `path` validates exactly what it would in production.
// Nothing is sent through the namespace.
#include <sys/types.h>

#include <string>

namespace netns::bench {

struct TargetNs {
  std::string path;       // the published link, <dir>/bench.net.ns
  std::string proc_path;  // /proc/<child pid>/ns/net
  std::string dir;        // the holder directory
  int fd = -1;            // the namespace, open, close-on-exec, owned here
  pid_t pid = -1;         // the child holding it
};

// Created on first use (thread-safe), destroyed at exit.
const TargetNs& target_ns();

// The holder's publication steps for `ns` under another cluster ID, into the
// directory `dirfd` (shown as `dir`): the record, then the link.
void publish_record(int dirfd, const std::string& dir, const std::string& cluster_id,
                    const TargetNs& ns);
void publish_link(int dirfd, const std::string& dir, const std::string& cluster_id,
                  const TargetNs& ns);

}  // namespace netns::bench
