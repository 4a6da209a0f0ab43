#pragma once
// Shared by the executor's privileged tests: a holder directory with a fake
// holder (a NetnsChild plus the files netns-holder publishes, written with
// common's own atomic helpers), and netns-exec invocations whose command
// would leave a marker file, so "the command never ran" is observable.
#include <fcntl.h>
#include <sys/stat.h>

#include <ctime>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netns/atomic_file.hpp"
#include "netns/cluster_id.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/proc.hpp"
#include "netns/test/support.hpp"

namespace netns::test::exec {

inline HolderRecord record_for(const std::string& id, pid_t pid, NsId netns) {
  HolderRecord r;
  r.cluster_id = id;
  r.pid = pid;
  r.pid_start_time = pid_start_time(pid).value_or(0);
  r.netns = netns;
  r.pidns_ino = current_pidns_id().ino;
  r.boot_id = read_boot_id();
  r.created_unix = static_cast<uint64_t>(::time(nullptr));
  return r;
}

// Publishes <ID>.holder.json, then <ID>.net.ns (the holder's order).
inline void publish(const std::string& dir, const HolderRecord& record,
                    const std::string& link_target) {
  UniqueFd d = open_fd(dir, O_RDONLY | O_DIRECTORY);
  auto names = holder_file_names(record.cluster_id);
  write_file_atomic(d.get(), names.record, serialize_record(record), 0644, dir);
  symlink_atomic(d.get(), names.ns_link, link_target, dir);
}

inline void publish_holder(const std::string& dir, const std::string& id, const NetnsChild& ns) {
  publish(dir, record_for(id, ns.pid(), ns.ns_id()), ns.ns_path());
}

struct ExecFixture : ::testing::Test {
  void SetUp() override {
    NETNS_REQUIRE_ROOT();
    holder_dir = tmp / "holder";
    ASSERT_EQ(::mkdir(holder_dir.c_str(), 0755), 0);
    marker = tmp / "marker";
  }

  // netns-exec ARGS... -- sh -c 'touch MARKER'
  RunResult exec_touch(std::vector<std::string> args, const RunOptions& options = {}) const {
    args.insert(args.begin(), NETNS_EXEC_BIN);
    args.insert(args.end(), {"--", "sh", "-c", "touch " + marker});
    return run_command(args, options);
  }
  RunResult exec(std::vector<std::string> args, const RunOptions& options = {}) const {
    args.insert(args.begin(), NETNS_EXEC_BIN);
    return run_command(args, options);
  }
  [[nodiscard]] bool marker_exists() const { return ::access(marker.c_str(), F_OK) == 0; }

  // Exit 125, nothing ran, and one message naming each of `needles`, plus a hint.
  void expect_refused(const RunResult& r, const std::vector<std::string>& needles) const {
    EXPECT_FALSE(r.signaled || r.timed_out) << r.describe();
    EXPECT_EQ(r.exit_code, 125) << r.describe();
    EXPECT_FALSE(marker_exists()) << "the command ran: " << r.describe();
    for (const auto& n : needles)
      EXPECT_NE(r.err.find(n), std::string::npos) << "missing " << n << " in: " << r.err;
    EXPECT_NE(r.err.find("check: "), std::string::npos) << "no hint in: " << r.err;
    EXPECT_EQ(r.out, "") << "stdout belongs to the command";
  }

  std::string config(const std::string& content) const {
    std::string path = tmp / "config.json";
    UniqueFd d = open_fd(tmp.path(), O_RDONLY | O_DIRECTORY);
    write_file_atomic(d.get(), "config.json", content, 0644, tmp.path());
    return path;
  }

  TempDir tmp;
  std::string holder_dir;
  std::string marker;
};

// An ExecFixture with one fake holder published in holder_dir: cluster
// `cluster` ("ceph-a" unless the test's fixture names another), `link` its
// <ID>.net.ns as a caller names it.
struct HeldExecFixture : ExecFixture {
  explicit HeldExecFixture(std::string id = "ceph-a") : cluster(std::move(id)) {}
  void SetUp() override {
    ExecFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ns.emplace();
    publish_holder(holder_dir, cluster, *ns);
    link = holder_dir + "/" + cluster + ".net.ns";
  }

  std::string cluster;
  std::optional<NetnsChild> ns;
  std::string link;
};

}  // namespace netns::test::exec
