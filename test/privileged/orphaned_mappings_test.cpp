// netns-exec doctor and inspect --json name every kernel mapping on the node
// whose client address no live holder (nor the node) has: a stand-in tree of
// the kernel's rbd sysfs, ceph debugfs and mountinfo (this machine's kernel
// has no krbd; the real thing is the kernel.orphan VM scenario's), judged
// against real holders and their records.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "holder_helpers.hpp"
#include "netns/holder_record.hpp"

namespace {

using namespace std::chrono_literals;

using holder_test::Holder;
using netns::test::ip_in;
using netns::test::TempDir;
using netns::test::unique_name;

void put(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

void rbd_device(const std::string& root, const std::string& n, const std::string& image,
                const std::string& addr) {
  std::string d = root + "/devices/" + n + "/";
  put(d + "pool", "rbd\n");
  put(d + "pool_ns", "\n");
  put(d + "name", image + "\n");
  put(d + "current_snap", "-\n");
  put(d + "client_id", "client41" + n + "\n");
  put(d + "client_addr", addr + "\n");
}

// A holder with one storage address, published in its record.
std::unique_ptr<Holder> holder_with(const TempDir& dir, const std::string& id,
                                    const std::string& cidr) {
  auto h = std::make_unique<Holder>(dir.path(), id);
  EXPECT_TRUE(h->wait_ready()) << h->err();
  ip_in(h->ns_path(), {"link", "set", "lo", "up"});  // as a pod sandbox has it
  ip_in(h->ns_path(), {"link", "add", "net1", "type", "veth", "peer", "name", "net1p"});
  ip_in(h->ns_path(), {"addr", "add", cidr, "dev", "net1"});
  ip_in(h->ns_path(), {"link", "set", "net1p", "up"});
  ip_in(h->ns_path(), {"link", "set", "net1", "up"});
  const std::string record = dir / (id + ".holder.json");
  EXPECT_TRUE(netns::test::wait_until(
      [&] {
        // The record itself, not a copy of its optional field: GCC 12 at -O1 (the
        // sanitizer builds) warns that the copied vector may be uninitialised.
        const netns::HolderRecord r = netns::parse_record(netns::read_file(record), record);
        return r.client_addresses.has_value() && !r.client_addresses->empty();
      },
      10s))
      << h->err();
  return h;
}

struct Node {
  TempDir holders;
  TempDir kernel;
  netns::test::NetnsChild node;  // the node's own namespace
  std::string a = unique_name("orpa"), b = unique_name("orpb");
  std::unique_ptr<Holder> ha, hb;

  void start() {
    ip_in(node.ns_path(), {"link", "add", "eth9", "type", "veth", "peer", "name", "eth9p"});
    ip_in(node.ns_path(), {"addr", "add", "198.18.32.1/24", "dev", "eth9"});
    ha = holder_with(holders, a, "198.18.31.50/24");
    hb = holder_with(holders, b, "198.18.31.60/24");
    // rbd0 through holder a, rbd1 through a namespace that is gone (a holder
    // sandbox replaced), a CephFS mount whose only client is in it too.
    rbd_device(kernel / "rbd", "0", "served", "198.18.31.50:0/1234");
    rbd_device(kernel / "rbd", "1", "stranded", "198.18.31.77:0/999");
    const std::string fs = kernel / "ceph/4f1c3a7e-5b2d-4a8e-9c61-0d2e7f3b9a10.client4300/";
    put(fs + "status", "instance: client.4300 198.18.31.77:0/555\nblocklisted: false\n");
    put(fs + "monmap", "epoch 1\n\tmon0\t198.18.31.1:6789\n");
    put(kernel / "mountinfo",
        "100 50 0:77 /volumes/csi /mnt/pv1 rw,relatime shared:1 - ceph "
        "198.18.31.1:6789:/volumes/csi rw,name=admin,secret=<hidden>,acl\n");
  }

  netns::test::RunResult run(const std::string& sub, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {NETNS_EXEC_BIN,   sub,
                                     "--netns",        holders / (b + ".net.ns"),
                                     "--holder-dir",   holders.path(),
                                     "--node-netns",   node.ns_path(),
                                     "--sys-bus-rbd",  kernel / "rbd",
                                     "--ceph-debugfs", kernel / "ceph",
                                     "--mountinfo",    kernel / "mountinfo",
                                     "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return netns::test::run_command(argv, holder_test::within(30s));
  }
};

const nlohmann::json* check_named(const nlohmann::json& doc, const std::string& name) {
  for (const auto& c : doc["checks"])
    if (c["name"] == name) return &c;
  return nullptr;
}

TEST(OrphanedMappings, DoctorFailsNamingEachStrandedMappingAndPassesTheServedOne) {
  NETNS_REQUIRE_ROOT();
  Node n;
  ASSERT_NO_FATAL_FAILURE(n.start());

  auto r = n.run("doctor");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["ok"], false);
  const auto* served = check_named(doc, "rbd /dev/rbd0");
  ASSERT_NE(served, nullptr) << r.out;
  EXPECT_EQ((*served)["status"], "PASS") << served->dump();
  EXPECT_NE((*served)["detail"].get<std::string>().find("served by holder \"" + n.a + "\""),
            std::string::npos)
      << served->dump();
  const auto* stranded = check_named(doc, "rbd /dev/rbd1");
  ASSERT_NE(stranded, nullptr) << r.out;
  EXPECT_EQ((*stranded)["status"], "FAIL");
  EXPECT_NE(
      (*stranded)["detail"].get<std::string>().find(
          "rbd/stranded, client 198.18.31.77: no live holder (and not the node) has its client "
          "address: its namespace is gone"),
      std::string::npos)
      << stranded->dump();
  const auto* mount = check_named(doc, "cephfs /mnt/pv1");
  ASSERT_NE(mount, nullptr) << r.out;
  EXPECT_EQ((*mount)["status"], "FAIL") << mount->dump();
  // Every other check passed: the exit status is the stranded mappings'.
  for (const auto& c : doc["checks"]) {
    if (c["status"] == "FAIL") {
      EXPECT_TRUE(c["name"] == "rbd /dev/rbd1" || c["name"] == "cephfs /mnt/pv1") << c.dump();
    }
  }

  // inspect --json lists the same, with the meaning.
  auto i = n.run("inspect");
  ASSERT_EQ(i.exit_code, 0) << i.describe();
  auto nm = nlohmann::json::parse(i.out)["node_mappings"];
  ASSERT_TRUE(nm.is_object()) << i.out;
  EXPECT_EQ(nm["orphaned"], 2) << nm.dump(2);
  ASSERT_EQ(nm["mappings"].size(), 3u) << nm.dump(2);
  EXPECT_EQ(nm["mappings"][1]["object"], "/dev/rbd1");
  EXPECT_EQ(nm["mappings"][1]["address"], "198.18.31.77");
  EXPECT_EQ(nm["mappings"][1]["orphaned"], true);

  // The control: without its holder, the mapping that was served is stranded
  // too (the record goes with the holder; a dead holder serves nothing).
  auto status = n.ha->stop(SIGTERM);
  ASSERT_TRUE(status.has_value());
  auto after = n.run("doctor");
  EXPECT_EQ(after.exit_code, 1) << after.describe();
  const auto after_doc = nlohmann::json::parse(after.out);
  const auto* now = check_named(after_doc, "rbd /dev/rbd0");
  ASSERT_NE(now, nullptr) << after.out;
  EXPECT_EQ((*now)["status"], "FAIL") << now->dump();

  // And with the stranded ones gone from the node, doctor is clean again.
  ASSERT_EQ(::rename((n.kernel / "rbd/devices").c_str(), (n.kernel / "rbd/gone").c_str()), 0);
  put(n.kernel / "mountinfo", "");
  auto clean = n.run("doctor");
  EXPECT_EQ(clean.exit_code, 0) << clean.describe();
  const auto clean_doc = nlohmann::json::parse(clean.out);
  const auto* none = check_named(clean_doc, "kernel mappings on this node");
  ASSERT_NE(none, nullptr) << clean.out;
  EXPECT_EQ((*none)["status"], "PASS");
}

}  // namespace
