// The trust policy's checks one by one, on real directories, files and
// namespaces (they need root: chown, and namespaces of other owners).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns/fd.hpp"
#include "netns/nsfd.hpp"
#include "netns/test/support.hpp"
#include "netns/trust.hpp"

namespace {

using namespace std::chrono_literals;
using netns::test::TempDir;
namespace trust = netns::trust;

constexpr uid_t kNobody = 65534;

trust::Finding chain(const std::string& dir, const trust::Owners& owners = {}) {
  netns::UniqueFd fd = netns::open_fd(dir, O_PATH | O_DIRECTORY);
  return trust::directory_chain(fd.get(), dir, owners);
}

TEST(TrustChecks, DirectoryChainAcceptsRootsDirectoriesBelowStickyTmp) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;  // root's, 0700, under the sticky, world-writable /tmp
  ASSERT_EQ(::mkdir((tmp / "h").c_str(), 0755), 0);
  auto f = chain(tmp / "h");
  EXPECT_TRUE(f.ok) << f.detail;
  EXPECT_STREQ(f.check, trust::kDirTrusted);
}

TEST(TrustChecks, DirectoryChainRefusesWritableOrForeignDirectoriesAnywhereAbove) {
  NETNS_REQUIRE_ROOT();
  TempDir tmp;
  std::string mid = tmp / "mid";
  std::string dir = mid + "/h";
  ASSERT_EQ(::mkdir(mid.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_TRUE(chain(dir).ok);

  ASSERT_EQ(::chmod(mid.c_str(), 0775), 0);  // group-writable above
  auto group = chain(dir);
  EXPECT_FALSE(group.ok);
  EXPECT_EQ(group.code, netns::Errc::untrusted);
  EXPECT_NE(group.detail.find(mid), std::string::npos) << group.detail;
  EXPECT_NE(group.detail.find("0775"), std::string::npos) << group.detail;

  ASSERT_EQ(::chmod(mid.c_str(), 01777), 0);  // sticky above a root-owned directory: fine
  EXPECT_TRUE(chain(dir).ok) << chain(dir).detail;
  ASSERT_EQ(::chmod(dir.c_str(), 01777), 0);  // but never the holder directory itself
  EXPECT_FALSE(chain(dir).ok);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(mid.c_str(), 0755), 0);

  ASSERT_EQ(::chown(mid.c_str(), kNobody, kNobody), 0);
  auto foreign = chain(dir);
  EXPECT_FALSE(foreign.ok);
  EXPECT_NE(foreign.detail.find("owned by uid 65534"), std::string::npos) << foreign.detail;
  auto named = chain(dir, trust::Owners{{kNobody}, {}});  // the operator named that uid
  EXPECT_TRUE(named.ok) << named.detail;
}

TEST(TrustChecks, FileOwner) {
  NETNS_REQUIRE_ROOT();
  struct stat st {};
  st.st_uid = 0;
  EXPECT_TRUE(trust::file_owner(trust::kLinkOwner, st, "link", "x", {}).ok);
  st.st_uid = kNobody;
  auto f = trust::file_owner(trust::kLinkOwner, st, "link", "x", {});
  EXPECT_FALSE(f.ok);
  EXPECT_NE(f.detail.find("owned by uid 65534"), std::string::npos);
  EXPECT_TRUE(
      trust::file_owner(trust::kLinkOwner, st, "link", "x", trust::Owners{{kNobody}, {}}).ok);
}

TEST(TrustChecks, OwnerUserNamespace) {
  NETNS_REQUIRE_ROOT();
  netns::test::NetnsChild ours;  // created by root: owned by the initial user namespace
  netns::UniqueFd fd = netns::open_fd(ours.ns_path(), O_RDONLY);
  EXPECT_TRUE(trust::initial_user_namespace(trust::read_namespace(fd.get(), ours.ns_path()),
                                            ours.ns_path(), false)
                  .ok);

  netns::test::Process userns({"unshare", "--user", "--map-root-user", "--net", "sleep", "60"});
  const std::string user = "/proc/" + std::to_string(userns.pid()) + "/ns/user";
  ASSERT_TRUE(netns::test::wait_until(
      [&] {
        return netns::test::ns_id_of_path(user) != netns::test::ns_id_of_path("/proc/self/ns/user");
      },
      5s));
  const std::string net = "/proc/" + std::to_string(userns.pid()) + "/ns/net";
  netns::UniqueFd other = netns::open_fd(net, O_RDONLY);
  const trust::NamespaceFacts facts = trust::read_namespace(other.get(), net);
  EXPECT_TRUE(trust::network_namespace(facts).ok);
  EXPECT_EQ(facts.owner, netns::test::ns_id_of_path(user))
      << "the owner is what NS_GET_USERNS gave";
  auto refused = trust::initial_user_namespace(facts, net, false);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.detail.find("not by the initial user namespace"), std::string::npos)
      << refused.detail;
  EXPECT_TRUE(trust::initial_user_namespace(facts, net, true).ok) << "the opt-in";
}

TEST(TrustChecks, HostNamespace) {
  NETNS_REQUIRE_ROOT();
  netns::test::NetnsChild child;
  netns::NsId own = netns::current_netns_id();
  EXPECT_NE(trust::is_host_netns(child.ns_id(), own), trust::HostNetns::yes);
  netns::NsId init{own.dev, netns::kInitialNetNsIno};
  EXPECT_EQ(trust::is_host_netns(init, child.ns_id()), trust::HostNetns::yes)
      << "the fixed inode is the host's on every kernel";
  auto f = trust::not_host_namespace(init, child.ns_id(), "x", false);
  EXPECT_FALSE(f.ok);
  EXPECT_TRUE(trust::not_host_namespace(init, child.ns_id(), "x", true).ok);
}

}  // namespace
