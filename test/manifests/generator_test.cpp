// netns-manifest's building blocks: YAML quoting that never changes a value's
// type, names that are valid Kubernetes names and never collide, and refusal
// of every bad input with a message that says what to pass instead.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "csi_config.hpp"
#include "holder_daemonset.hpp"
#include "names.hpp"
#include "netns/error.hpp"
#include "plugin_patch.hpp"
#include "yaml.hpp"

namespace nm = netns::manifest;

namespace {

bool dns_label(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; };
  for (char c : s)
    if (!ok(c)) return false;
  return s.front() != '-' && s.back() != '-';
}

nm::HolderOptions holder(const std::string& id) {
  nm::HolderOptions o;
  o.cluster_id = id;
  o.image = "registry.example.com/netns-holder:1";
  return o;
}

}  // namespace

TEST(ManifestYaml, QuotesWhatWouldChangeType) {
  for (const char* s : {"true", "False", "yes", "on", "null", "~", "0123", "1.5", "300s", ".inf",
                        "-1", "-", "---", "", "a: b", "a #b", "x:", "@x", "'q'"}) {
    EXPECT_EQ(nm::quote_scalar(s).front(), '"') << s;
  }
  for (const char* s : {"ceph-a", "--cluster-id", "/usr/bin/netns-holder", "apps/v1",
                        "registry.example.com/x:1", "k8s.v1.cni.cncf.io/networks"}) {
    EXPECT_EQ(nm::quote_scalar(s), s) << s;
  }
}

TEST(ManifestYaml, EscapesInsideQuotes) {
  EXPECT_EQ(nm::quote_scalar("a\"b\\c\td"), "\"a\\\"b\\\\c\\td\"");
  EXPECT_EQ(nm::quote_scalar(std::string("x\x01y")), "\"x\\x01y\"");
}

TEST(ManifestYaml, EmitsNestedBlocksAndComments) {
  nm::Node item = nm::Node::map();
  item.set("name", nm::Node::str("c"));
  item.set("args", nm::Node::strings({"--a", "1"}));
  nm::Node doc = nm::Node::map();
  doc.set("kind", nm::Node::str("X"), "why X");
  doc.set("list", nm::Node::seq().push(std::move(item)));
  doc.set("empty", nm::Node::map());
  doc.set("text", nm::Node::str("line1\nline2\n"));
  EXPECT_EQ(nm::emit(doc),
            "# why X\n"
            "kind: X\n"
            "list:\n"
            "  - name: c\n"
            "    args:\n"
            "      - --a\n"
            "      - \"1\"\n"
            "empty: {}\n"
            "text: |\n"
            "  line1\n"
            "  line2\n");
}

TEST(ManifestYaml, RefusesDuplicateKeys) {
  nm::Node m = nm::Node::map();
  m.set("a", nm::Node::integer(1));
  EXPECT_THROW(m.set("a", nm::Node::integer(2)), std::logic_error);
}

TEST(ManifestNames, HolderNamesAreDnsLabelsAndDistinct) {
  std::set<std::string> names;
  for (const char* id : {"ceph-a", "Ceph-A", "ceph.a", "ceph_a", "ceph-a-", "ceph-a.", "a",
                         "0b8f3a52-6d2e-4c71-9e0a-3f5d1c7b2a94",
                         "a-very-long-cluster-id-that-goes-on-and-on-and-on-to-64-chars-x",
                         "a-very-long-cluster-id-that-goes-on-and-on-and-on-to-64-chars-y"}) {
    const std::string name = nm::holder_name(nm::Kind::cephfs, id);
    EXPECT_TRUE(dns_label(name)) << id << " -> " << name;
    EXPECT_TRUE(names.insert(name).second) << id << " collides: " << name;
  }
  EXPECT_EQ(nm::holder_name(nm::Kind::rbd, "ceph-a"), "netns-holder-rbd-ceph-a");
}

TEST(ManifestNames, KindFromDriver) {
  EXPECT_EQ(nm::kind_from_driver("rbd.csi.ceph.com"), nm::Kind::rbd);
  EXPECT_EQ(nm::kind_from_driver("rook-ceph.cephfs.csi.ceph.com"), nm::Kind::cephfs);
  EXPECT_EQ(nm::kind_from_driver("nfs.csi.ceph.com"), nm::Kind::nfs);
  EXPECT_THROW(nm::kind_from_driver("xrbd.csi.ceph.com"), netns::Error);
  EXPECT_THROW(nm::kind_from_driver("example.com"), netns::Error);
}

TEST(ManifestNames, NetNamespaceFilePath) {
  EXPECT_EQ(nm::net_namespace_file_path("/var/lib/kubelet", "rbd.csi.ceph.com", "c1", false),
            "/var/lib/kubelet/plugins/rbd.csi.ceph.com/c1.net.ns");
  EXPECT_EQ(nm::net_namespace_file_path("/k", "cephfs.csi.ceph.com", "c1", true),
            "/k/plugins/cephfs.csi.ceph.com/c1.net.sock");
}

TEST(ManifestNames, SocketPathFitsSunPath) {
  const std::string id64(64, 'a');
  // 25 + 19 + 1 + 64 + 9 = 118 bytes: too long for sockaddr_un.
  EXPECT_THROW(nm::net_namespace_file_path("/var/lib/kubelet", "cephfs.csi.ceph.com", id64, true),
               netns::Error);
  // The same ID in symlink mode is fine, and so is an fsid in socket mode.
  EXPECT_NO_THROW(nm::net_namespace_file_path("/var/lib/kubelet", "cephfs.csi.ceph.com", id64, false));
  EXPECT_NO_THROW(nm::net_namespace_file_path("/var/lib/kubelet", "rook-ceph.cephfs.csi.ceph.com",
                                              "0b8f3a52-6d2e-4c71-9e0a-3f5d1c7b2a94", true));
  auto o = holder(id64);
  o.socket = true;
  EXPECT_THROW((void)nm::holder_daemonset(o), netns::Error);
}

TEST(ManifestHolder, RefusesBadInput) {
  auto refuses = [](nm::HolderOptions o, const std::string& needle) {
    try {
      (void)nm::holder_daemonset(o);
      ADD_FAILURE() << "accepted, expected: " << needle;
    } catch (const netns::Error& e) {
      EXPECT_EQ(e.code(), netns::Errc::invalid_argument);
      EXPECT_NE(e.describe().find(needle), std::string::npos) << e.describe();
      EXPECT_FALSE(e.hint().empty()) << e.describe();
    }
  };
  refuses(holder("../x"), "cluster ID");
  refuses(holder("-x"), "cluster ID");
  auto o = holder("c");
  o.image = "bad image";
  refuses(o, "image");
  o = holder("c");
  o.ns = "Bad_NS";
  refuses(o, "namespace");
  o = holder("c");
  o.driver = "example.com";
  refuses(o, "kind");
  o = holder("c");
  o.kubelet_dir = "var/lib/kubelet";
  refuses(o, "kubelet directory");
  o = holder("c");
  o.guard_max_wait = std::chrono::seconds{0};
  refuses(o, "guard wait");
  o = holder("c");
  o.socket = true;
  o.allow_uids.clear();
  refuses(o, "allow-uid");
}

TEST(ManifestHolder, CommandsFollowTheMode) {
  auto o = holder("c1");
  EXPECT_EQ(nm::holder_command(o),
            (std::vector<std::string>{"/usr/bin/netns-holder", "--cluster-id", "c1", "--dir",
                                      "/var/lib/kubelet/plugins/rbd.csi.ceph.com"}));
  o.socket = true;
  o.allow_uids = {0, 1000};
  const auto cmd = nm::holder_command(o);
  EXPECT_EQ(std::vector<std::string>(cmd.begin() + 5, cmd.end()),
            (std::vector<std::string>{"--socket", "--allow-uid", "0", "--allow-uid", "1000"}));
}

TEST(ManifestHolder, GuardWatchesThePodsOwnNamespace) {
  auto o = holder("c1");
  o.guard_max_wait = std::chrono::seconds{90};
  EXPECT_EQ(nm::guard_command(o),
            (std::vector<std::string>{"/usr/bin/netns-exec", "guard", "--wait-idle", "--netns",
                                      "/proc/self/ns/net", "--allow-own-netns", "--max-wait",
                                      "90s"}));
}

TEST(ManifestConfig, ParsesClusterSpecs) {
  const auto spec = nm::parse_cluster_spec("ceph-a=198.18.0.1:6789,198.18.0.2:6789");
  EXPECT_EQ(spec.id, "ceph-a");
  EXPECT_EQ(spec.monitors, (std::vector<std::string>{"198.18.0.1:6789", "198.18.0.2:6789"}));
  EXPECT_THROW(nm::parse_cluster_spec("ceph-a"), netns::Error);
  EXPECT_THROW(nm::parse_cluster_spec("ceph-a="), netns::Error);
  EXPECT_THROW(nm::parse_cluster_spec("ceph-a=1.2.3.4:6789,"), netns::Error);
  EXPECT_THROW(nm::parse_cluster_spec("../x=1.2.3.4:6789"), netns::Error);
  EXPECT_THROW(nm::parse_cluster_spec("c=a b"), netns::Error);
}

TEST(ManifestConfig, RefusesDuplicatesAndKindClashes) {
  nm::CsiConfigOptions o;
  o.clusters = {nm::parse_cluster_spec("a=1.2.3.4:6789"), nm::parse_cluster_spec("a=1.2.3.5:6789")};
  EXPECT_THROW(nm::csi_config_json(o), netns::Error);
  o.clusters.pop_back();
  o.drivers = {"rbd.csi.ceph.com", "x.rbd.csi.ceph.com"};
  EXPECT_THROW(nm::csi_config_json(o), netns::Error);
}

TEST(ManifestConfig, JsonHasOneEntryPerCluster) {
  nm::CsiConfigOptions o;
  o.clusters = {nm::parse_cluster_spec("a=1.2.3.4:6789"), nm::parse_cluster_spec("B.2=1.2.3.5:3300")};
  o.socket = true;
  const std::string json = nm::csi_config_json(o);
  EXPECT_NE(json.find("\"clusterID\": \"B.2\""), std::string::npos) << json;
  EXPECT_NE(json.find("/var/lib/kubelet/plugins/cephfs.csi.ceph.com/B.2.net.sock"), std::string::npos)
      << json;
  EXPECT_EQ(json.find("net.ns"), std::string::npos) << json;
}

TEST(ManifestPlugin, RefusesMultusOnHostNetwork) {
  nm::PluginPatchOptions o;
  o.host_network = true;
  o.multus = "storage/x";
  EXPECT_THROW((void)nm::plugin_patch(o), netns::Error);
  o.multus.clear();
  o.liveness_port = 70000;
  EXPECT_THROW((void)nm::plugin_patch(o), netns::Error);
}
