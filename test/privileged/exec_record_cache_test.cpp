// resolve() keeps a parsed record and its verified pidfd between calls
// (executor/lib/src/record_cache.hpp). What it must never do is trust them
// longer than they are true: a replaced record is read again, a holder that
// died is refused at once, and a reused pid cannot pass through the cache.
#include <fcntl.h>
#include <sys/stat.h>

#include "exec_fixture.hpp"
#include "netns_exec/executor.hpp"

namespace netns::test::exec {
namespace {

namespace ex = netns::exec;

struct ExecRecordCache : ExecFixture {};

TEST_F(ExecRecordCache, AReplacedRecordIsReadAgain) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  auto first = ex::resolve(ex::Source::netns_path(link));
  ASSERT_TRUE(first.record.has_value());
  auto second = ex::resolve(ex::Source::netns_path(link));  // from the cache
  EXPECT_EQ(second.id, ns.ns_id());
  ASSERT_TRUE(second.holder_pidfd);

  // The holder's way: a new record renamed over the old one (a new inode).
  HolderRecord other = record_for("ceph-a", ns.pid(), ns.ns_id());
  other.cluster_id = "ceph-b";
  UniqueFd d = open_fd(holder_dir, O_RDONLY | O_DIRECTORY);
  write_file_atomic(d.get(), "ceph-a.holder.json", serialize_record(other), 0644, holder_dir);
  try {
    (void)ex::resolve(ex::Source::netns_path(link));
    FAIL() << "the replaced record was not read again";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("for cluster \"ceph-b\""), std::string::npos) << e.message();
  }
}

TEST_F(ExecRecordCache, AHolderThatDiedIsRefusedThoughItsPidfdWasCached) {
  auto holder = std::make_unique<NetnsChild>();
  // Another process in the holder's namespace keeps the link resolvable after
  // the holder dies, so only the holder's death is wrong.
  Process other({"nsenter", "--net=" + holder->ns_path(), "--", "sleep", "60"});
  const std::string other_ns = "/proc/" + std::to_string(other.pid()) + "/ns/net";
  ASSERT_TRUE(wait_until([&] { return ns_id_of_path(other_ns) == holder->ns_id(); }, 5s));
  publish(holder_dir, record_for("ceph-a", holder->pid(), holder->ns_id()), other_ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  ASSERT_NO_THROW((void)ex::resolve(ex::Source::netns_path(link)));
  ASSERT_NO_THROW((void)ex::resolve(ex::Source::netns_path(link)));  // the pidfd is cached now
  holder.reset();  // killed and reaped
  try {
    (void)ex::resolve(ex::Source::netns_path(link));
    FAIL() << "a dead holder passed through the cache";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::stale_holder) << e.describe();
    EXPECT_NE(e.message().find("is gone"), std::string::npos) << e.describe();
  }
}

}  // namespace
}  // namespace netns::test::exec
