// resolve() keeps a parsed record, its verified pidfd and the namespace a
// link led to between calls (executor/lib/src/record_cache.hpp). What it must
// never do is trust them longer than they are true: a replaced record is read
// again, a holder that died or moved is refused at once, a replaced link is
// followed again, and the directories and our own namespace are checked on
// every call.
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

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
  ASSERT_TRUE(second.holder.pidfd);

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
  holder.reset();                                                    // killed and reaped
  try {
    (void)ex::resolve(ex::Source::netns_path(link));
    FAIL() << "a dead holder passed through the cache";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::stale_holder) << e.describe();
    EXPECT_NE(e.message().find("is gone"), std::string::npos) << e.describe();
  }
}

// Every call below resolves the link twice first: the second comes from the
// cache (the namespace the link led to is kept), so the third shows what the
// cache does with a change.
void resolve_twice(const std::string& link) {
  ASSERT_NO_THROW((void)ex::resolve(ex::Source::netns_path(link)));
  ASSERT_NO_THROW((void)ex::resolve(ex::Source::netns_path(link)));
}

// A holder that leaves its namespace on request (unshare into a new one):
// what a holder moved by setns would look like.
class MovableHolder {
 public:
  MovableHolder() {
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0)
      throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      char c = 0;
      if (::unshare(CLONE_NEWNET) != 0) ::_exit(1);
      (void)!::write(from_child[1], "r", 1);
      if (::read(to_child[0], &c, 1) != 1) ::_exit(0);
      if (::unshare(CLONE_NEWNET) != 0) ::_exit(1);
      (void)!::write(from_child[1], "m", 1);
      ::pause();
      ::_exit(0);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    go_ = UniqueFd(to_child[1]);
    done_ = UniqueFd(from_child[0]);
    char c = 0;
    if (pid_ < 0 || ::read(done_.get(), &c, 1) != 1)
      throw std::runtime_error("movable holder did not start");
  }
  ~MovableHolder() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  MovableHolder(const MovableHolder&) = delete;
  MovableHolder& operator=(const MovableHolder&) = delete;
  [[nodiscard]] pid_t pid() const { return pid_; }
  void move() {
    char c = 0;
    if (::write(go_.get(), "g", 1) != 1 || ::read(done_.get(), &c, 1) != 1 || c != 'm')
      throw std::runtime_error("movable holder did not move");
  }

 private:
  pid_t pid_ = -1;
  UniqueFd go_, done_;
};

TEST_F(ExecRecordCache, AHolderThatMovedToAnotherNamespaceIsRefusedThoughItsNamespaceWasCached) {
  MovableHolder holder;
  const std::string holder_ns = "/proc/" + std::to_string(holder.pid()) + "/ns/net";
  const NsId first = ns_id_of_path(holder_ns);
  // Another process keeps the first namespace (and the link) alive after the move.
  Process other({"nsenter", "--net=" + holder_ns, "--", "sleep", "60"});
  const std::string other_ns = "/proc/" + std::to_string(other.pid()) + "/ns/net";
  ASSERT_TRUE(wait_until([&] { return ns_id_of_path(other_ns) == first; }, 5s));
  publish(holder_dir, record_for("ceph-a", holder.pid(), first), other_ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  resolve_twice(link);
  holder.move();
  try {
    (void)ex::resolve(ex::Source::netns_path(link));
    FAIL() << "a holder that left its namespace passed through the cache";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::identity_mismatch) << e.describe();
    EXPECT_NE(e.message().find("is now in"), std::string::npos) << e.describe();
  }
}

TEST_F(ExecRecordCache, ADirectoryMadeWritableIsRefusedThoughTheLinkWasCached) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  resolve_twice(link);
  ASSERT_EQ(::chmod(holder_dir.c_str(), 0777), 0);
  try {
    (void)ex::resolve(ex::Source::netns_path(link));
    ADD_FAILURE() << "a world-writable holder directory passed through the cache";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::untrusted) << e.describe();
    EXPECT_NE(e.message().find("writable by group or others"), std::string::npos) << e.describe();
  }
  ASSERT_EQ(::chmod(holder_dir.c_str(), 0755), 0);
  EXPECT_NO_THROW((void)ex::resolve(ex::Source::netns_path(link)));
}

TEST_F(ExecRecordCache, AReplacedLinkIsFollowedAgain) {
  NetnsChild ns, elsewhere;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  resolve_twice(link);
  // The same record, a new link (a new inode) to another namespace.
  UniqueFd d = open_fd(holder_dir, O_RDONLY | O_DIRECTORY);
  symlink_atomic(d.get(), "ceph-a.net.ns", elsewhere.ns_path(), holder_dir);
  try {
    (void)ex::resolve(ex::Source::netns_path(link));
    FAIL() << "the cached namespace was used for a replaced link";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::identity_mismatch) << e.describe();
  }
}

TEST_F(ExecRecordCache, OurOwnNamespaceIsRefusedThoughTheLinkWasCached) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  resolve_twice(link);
  // A thread of ours that entered the holder's namespace: for it, that is its own.
  std::optional<Errc> refused;
  std::thread inside([&] {
    UniqueFd target = open_fd(ns.ns_path(), O_RDONLY);
    if (::setns(target.get(), CLONE_NEWNET) != 0) return;
    try {
      (void)ex::resolve(ex::Source::netns_path(link));
    } catch (const Error& e) {
      refused = e.code();
    }
  });
  inside.join();
  ASSERT_TRUE(refused.has_value()) << "our own namespace passed through the cache";
  EXPECT_EQ(*refused, Errc::own_namespace);
}

TEST_F(ExecRecordCache, ALockNotHeldByTheHolderIsRefusedThoughTheLinkWasCached) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  resolve_twice(link);  // no lock file: not checked, as for a record no netns-holder wrote
  // A lock file nobody holds appears: the holder that wrote the record does
  // not hold it, so the cached call must refuse as a first call does.
  UniqueFd d = open_fd(holder_dir, O_RDONLY | O_DIRECTORY);
  write_file_atomic(d.get(), "ceph-a.lock", "", 0644, holder_dir);
  try {
    (void)ex::resolve(ex::Source::netns_path(link));
    FAIL() << "a cached call skipped the lock check";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::stale_holder) << e.describe();
    EXPECT_NE(e.message().find("is held by nobody"), std::string::npos) << e.describe();
  }
}

// The descriptors of this process that are the namespace `id`.
int descriptors_of(NsId id) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    struct stat st {};
    if (::stat(e.path().c_str(), &st) == 0 && st.st_dev == id.dev && st.st_ino == id.ino) ++n;
  }
  return n;
}

TEST_F(ExecRecordCache, RememberFalseKeepsNothingBetweenCalls) {
  NetnsChild ns;
  publish_holder(holder_dir, "ceph-a", ns);
  const std::string link = holder_dir + "/ceph-a.net.ns";
  const int before = descriptors_of(ns.ns_id());  // the test's own, if any
  ex::ResolveOptions once;
  once.remember = false;
  for (int i = 0; i < 2; ++i) {
    auto r = ex::resolve(ex::Source::netns_path(link), once);
    EXPECT_EQ(r.id, ns.ns_id());
    EXPECT_EQ(descriptors_of(ns.ns_id()), before + 1) << "only the returned descriptor";
  }
  EXPECT_EQ(descriptors_of(ns.ns_id()), before)
      << "remember=false left a descriptor of the namespace";
  // The control: remembered, the namespace a link led to is kept for the next call.
  resolve_twice(link);
  EXPECT_EQ(descriptors_of(ns.ns_id()), before + 1)
      << "the cache kept nothing: the control shows nothing";
}

// A namespace owned by a user namespace of its own (what any user can make
// with `unshare -Urn`): refused unless allow_userns, and the permission is
// never remembered for a later call without it.
TEST_F(ExecRecordCache, AllowUsernsAcceptsAUserOwnedNamespaceOnlyForThatCall) {
  Process owned({"unshare", "-Urn", "--", "sleep", "60"});
  const std::string target = "/proc/" + std::to_string(owned.pid()) + "/ns/net";
  const NsId own = current_netns_id();
  ASSERT_TRUE(wait_until(
      [&] {
        try {
          return ns_id_of_path(target) != own;
        } catch (const Error&) {
          return false;
        }
      },
      5s));
  const NsId id = ns_id_of_path(target);
  publish(holder_dir, record_for("ceph-u", owned.pid(), id), target);
  const std::string link = holder_dir + "/ceph-u.net.ns";
  auto refused = [&](const char* when) {
    try {
      (void)ex::resolve(ex::Source::netns_path(link));
      ADD_FAILURE() << "a namespace owned by another user namespace was accepted " << when;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::wrong_namespace) << e.describe();
      EXPECT_NE(e.message().find("not by the initial user namespace"), std::string::npos)
          << e.describe();
    }
  };
  refused("without --allow-userns");
  ex::ResolveOptions allow;
  allow.allow_userns = true;
  for (int i = 0; i < 2; ++i) {
    auto r = ex::resolve(ex::Source::netns_path(link), allow);
    EXPECT_EQ(r.id, id);
    ASSERT_TRUE(r.record.has_value());
    EXPECT_EQ(r.record->pid, owned.pid());
  }
  EXPECT_EQ(descriptors_of(id), 0) << "a namespace of another user namespace was cached";
  refused("after calls with --allow-userns");
}

}  // namespace
}  // namespace netns::test::exec
