// The record is required for every file in a holder directory, whatever its
// name (trust::holds_holder_files, "holder directory"): a link there not
// named <ID>.net.ns is a link into /proc like the holder's own, and a pid
// reuse behind it must be caught as behind the holder's. Each refusal is
// 125 and the command did not run; each has a control.
#include <sys/stat.h>
#include <unistd.h>

#include "exec_fixture.hpp"
#include "netns_exec/source.hpp"

namespace netns::test::exec {
namespace {

struct HolderDirectory : ExecFixture {
  void SetUp() override {
    ExecFixture::SetUp();
    if (IsSkipped()) return;
    holder.emplace();
    unrelated.emplace();
    publish_holder(holder_dir, "ceph-a", *holder);  // its record makes it a holder directory
  }
  void ran(const RunResult& r, const std::string& what) const {
    EXPECT_TRUE(r.ok()) << what << ": " << r.describe();
    EXPECT_TRUE(marker_exists()) << what << ": the command did not run";
    ::unlink(marker.c_str());
  }
  std::optional<NetnsChild> holder, unrelated;
};

// A second link, named otherwise, to a namespace no record describes (what
// a reused pid behind a Rook-era name looks like), refused even with the
// opt-in for unrecorded files, which is for files outside holder
// directories. Outside one the same link is a plain namespace file: refused
// without the opt-in, run with it (the control).
TEST_F(HolderDirectory, ALinkNamedOtherwiseNeedsARecord) {
  ASSERT_EQ(::symlink(unrelated->ns_path().c_str(), (holder_dir + "/rook-a.net").c_str()), 0);
  expect_refused(exec_touch({"run", "--netns", holder_dir + "/rook-a.net"}),
                 {"is a holder directory", "ceph-a.", "without a cluster ID"});
  expect_refused(
      exec_touch({"run", "--allow-unrecorded-netns", "--netns", holder_dir + "/rook-a.net"}),
      {"is a holder directory", "ceph-a.", "without a cluster ID"});
  const std::string plain = tmp / "plain";
  ASSERT_EQ(::mkdir(plain.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(unrelated->ns_path().c_str(), (plain + "/rook-a.net").c_str()), 0);
  expect_refused(
      exec_touch({"run", "--netns", plain + "/rook-a.net"}),
      {"no holder record vouches for", plain + "/rook-a.net", "--allow-unrecorded-netns"});
  ran(exec_touch({"run", "--allow-unrecorded-netns", "--netns", plain + "/rook-a.net"}),
      "control: not a holder directory, with the opt-in");
}

// Named by ceph-csi's config for cluster ceph-a: the file must match ceph-a's
// record. The control: a link named otherwise to the holder's namespace.
TEST_F(HolderDirectory, AConfiguredFileNamedOtherwiseIsCheckedAgainstItsClustersRecord) {
  ASSERT_EQ(::symlink(holder->ns_path().c_str(), (holder_dir + "/good").c_str()), 0);
  ASSERT_EQ(::symlink(unrelated->ns_path().c_str(), (holder_dir + "/bad").c_str()), 0);
  auto cfg = [&](const std::string& file, const std::string& id) {
    return config("[{\"clusterID\": \"" + id + "\", \"rbd\": {\"netNamespaceFilePath\": \"" +
                  holder_dir + "/" + file + "\"}}]");
  };
  ran(exec_touch({"run", "--cluster-id", "ceph-a", "--config", cfg("good", "ceph-a")}),
      "control: the holder's");
  expect_refused(exec_touch({"run", "--cluster-id", "ceph-a", "--config", cfg("bad", "ceph-a")}),
                 {"ceph-a.holder.json"});
  // Another cluster's entry naming the same directory: no record of its own.
  expect_refused(
      exec_touch({"run", "--cluster-id", "ceph-b", "--config", cfg("good", "ceph-b")}),
      {"ceph-b.holder.json", "is a holder directory", "must come with its cluster's record"});
}

// Transparent mode allows its own namespace (ceph-csi's own nsenter into
// the holder, then the shim) only where a record vouched for it.
TEST_F(HolderDirectory, OwnNamespaceOnlyWithARecordWhenAskedSo) {
  netns::exec::ResolveOptions options;
  options.allow_own_netns = true;
  options.allow_host_netns = true;  // the test runs in the host's
  auto own =
      netns::exec::resolve(netns::exec::Source::netns_path("/proc/thread-self/ns/net"), options);
  EXPECT_TRUE(own.fd) << "the control: allowed without the record requirement";
  options.own_netns_needs_record = true;
  try {
    (void)netns::exec::resolve(netns::exec::Source::netns_path("/proc/thread-self/ns/net"),
                               options);
    ADD_FAILURE() << "our own namespace was accepted with no record for it";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::own_namespace) << e.describe();
  }
}

}  // namespace
}  // namespace netns::test::exec
