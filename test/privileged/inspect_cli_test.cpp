// The inspect, doctor and guard subcommands of the netns-exec binary, end to
// end against the two-namespace storage network (inspect_fixture.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "inspect_fixture.hpp"

namespace netns::test {
namespace {

using Clock = std::chrono::steady_clock;
using testing::AnyOf;
using testing::HasSubstr;

constexpr const char* kExec = NETNS_EXEC_BIN;
#define NEED_CLI() NETNS_REQUIRE_ROOT()

RunResult exec(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kExec};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.timeout = 20s;
  return run_command(argv, options);
}

std::vector<std::string> fail_lines(const std::string& out) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    std::string line = out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (line.rfind("FAIL", 0) == 0) lines.push_back(line);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return lines;
}

const std::string kMon = std::string(kMonAddr) + ":6789";

TEST(InspectCli, InspectShowsTheMonitorSessionAsTableAndJson) {
  NEED_CLI();
  StorageNet net;
  auto session = net.open_session();

  auto table = exec({"inspect", "--netns", net.inspected.ns_path(), "--allow-unrecorded-netns"});
  ASSERT_TRUE(table.ok()) << table.describe();
  EXPECT_THAT(table.out, HasSubstr("mon   " + kMon));
  EXPECT_THAT(table.out, HasSubstr(net.va + "  veth"));

  auto json =
      exec({"inspect", "--netns", net.inspected.ns_path(), "--allow-unrecorded-netns", "--json"});
  ASSERT_TRUE(json.ok()) << json.describe();
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["format"], 1);
  EXPECT_EQ(doc["namespace"]["netns_ino"], net.inspected.ns_id().ino);
  ASSERT_EQ(doc["ceph_sessions"].size(), 1u);
  EXPECT_EQ(doc["ceph_sessions"][0]["peer"], kMon);
  EXPECT_EQ(doc["ceph_sessions"][0]["role"], "mon");
  EXPECT_EQ(doc["ceph_sessions"][0]["established"], 1);
}

TEST(InspectCli, InspectRejectsABadSourceWith125) {
  NEED_CLI();
  auto r = exec({"inspect", "--netns", "/nonexistent/" + unique_name("c") + ".net.ns"});
  EXPECT_EQ(r.exit_code, 125) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("No such file or directory"));
}

TEST(InspectCli, DoctorPassesThenFailsOnExactlyTheRightLine) {
  NEED_CLI();
  StorageNet net;
  {
    UniqueFd listener = net.listen_mon(6789);
    auto ok = exec(
        {"doctor", "--netns", net.inspected.ns_path(), "--allow-unrecorded-netns", "--mon", kMon});
    EXPECT_EQ(ok.exit_code, 0) << ok.describe();
    EXPECT_THAT(ok.out, HasSubstr("PASS  connect to " + kMon));
    EXPECT_THAT(fail_lines(ok.out), testing::IsEmpty());
  }
  // The listener is gone: the route still passes, the connect is refused.
  auto refused = exec(
      {"doctor", "--netns", net.inspected.ns_path(), "--allow-unrecorded-netns", "--mon", kMon});
  EXPECT_EQ(refused.exit_code, 1) << refused.describe();
  auto lines = fail_lines(refused.out);
  ASSERT_EQ(lines.size(), 1u) << refused.out;
  EXPECT_THAT(lines[0], HasSubstr("connect to " + kMon));
  EXPECT_THAT(lines[0], HasSubstr("refused"));

  UniqueFd listener = net.listen_mon(6789);
  net.del_route();
  auto no_route = exec(
      {"doctor", "--netns", net.inspected.ns_path(), "--allow-unrecorded-netns", "--mon", kMon});
  EXPECT_EQ(no_route.exit_code, 1) << no_route.describe();
  lines = fail_lines(no_route.out);
  ASSERT_EQ(lines.size(), 1u) << no_route.out;
  EXPECT_THAT(lines[0], HasSubstr("route to " + kMon));
  EXPECT_THAT(lines[0], HasSubstr("no route"));
}

TEST(InspectCli, DoctorRejectsAMalformedMonNamingIt) {
  NEED_CLI();
  NetnsChild child;
  auto r = exec({"doctor", "--netns", child.ns_path(), "--allow-unrecorded-netns", "--mon",
                 "198.18.0.1:notaport"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("\"198.18.0.1:notaport\""));
  EXPECT_EQ(r.out, "") << "no check runs before the input is valid";
}

TEST(InspectCli, DoctorJsonHasOneEntryPerCheck) {
  NEED_CLI();
  NetnsChild child;  // no interface with an address: a FAIL with a hint
  auto text = exec({"doctor", "--netns", child.ns_path(), "--allow-unrecorded-netns"});
  auto r = exec({"doctor", "--json", "--netns", child.ns_path(), "--allow-unrecorded-netns"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(text.exit_code, r.exit_code);
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["ok"], false);
  ASSERT_TRUE(doc["checks"].is_array());
  size_t lines = 0;
  for (char c : text.out) lines += c == '\n';
  size_t hints = 0;
  for (const auto& c : doc["checks"]) {
    ASSERT_TRUE(c["name"].is_string() && c["detail"].is_string()) << c.dump();
    const std::string status = c["status"];
    EXPECT_TRUE(status == "PASS" || status == "FAIL" || status == "SKIP") << c.dump();
    if (status == "FAIL" && c["hint"].is_string()) ++hints;
  }
  EXPECT_EQ(doc["checks"].size() + hints, lines)
      << "the text has a line per check plus one per hint:\n"
      << text.out;
  auto named = [&](const std::string& name) {
    for (const auto& c : doc["checks"])
      if (c["name"] == name) return c["status"].get<std::string>();
    return std::string("absent");
  };
  EXPECT_EQ(named("is a network namespace"), "PASS");
  EXPECT_EQ(named("owned by the initial user namespace"), "PASS");
  EXPECT_EQ(named("not the host's namespace"), "PASS");
  EXPECT_EQ(named("unrecorded file opted in"), "PASS");
  EXPECT_EQ(named("interface up with an address"), "FAIL");
}

TEST(InspectCli, DoctorGivesTheExecutorsMessageOnceAnd1ForAMissingFile) {
  NEED_CLI();
  std::string path = "/nonexistent/" + unique_name("c") + ".net.ns";
  auto r = exec({"doctor", "--netns", path, "--mon", "198.18.0.1:6789"});
  // A check failed (exit 1, as the man page says), and its line names the
  // file; the message is not logged a second time.
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_THAT(r.out, HasSubstr("FAIL  file exists"));
  EXPECT_THAT(r.out, HasSubstr(path));
  EXPECT_EQ(r.err.find(path), std::string::npos) << r.err;
  // 125 is for a doctor that cannot run at all.
  EXPECT_EQ(exec({"doctor", "--netns", path, "--mon", "no-port"}).exit_code, 125);
}

TEST(InspectCli, DoctorTakesMonitorsFromTheCephCsiConfig) {
  NEED_CLI();
  StorageNet net;
  UniqueFd listener = net.listen_mon(6789);
  TempDir dir;
  std::string id = unique_name("c");
  ASSERT_EQ(::symlink(net.inspected.ns_path().c_str(), (dir / (id + ".net.ns")).c_str()), 0);
  std::string config = dir / "config.json";
  {
    UniqueFd f = open_fd(config, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    write_all(f.get(),
              R"([{"clusterID":")" + id + R"(","monitors":[")" + kMon +
                  R"("],"rbd":{"netNamespaceFilePath":")" + (dir / (id + ".net.ns")) + R"("}}])",
              config);
  }
  // doctor as an operator runs it: in the plugin container, whose namespace
  // has its own route to the monitors (ceph-csi's in-process RADOS needs it).
  StorageNet plugin;
  UniqueFd plugin_ns = plugin.inspected_fd();
  RunOptions in_plugin;
  in_plugin.child_setup = [fd = plugin_ns.get()] {
    if (::setns(fd, CLONE_NEWNET) != 0) ::_exit(126);
  };
  // The link has no record (a Rook-era holder's): --identity if-present.
  const std::vector<std::string> doctor{kExec,      "doctor", "--cluster-id", id,
                                        "--config", config,   "--identity",   "if-present"};
  auto r = run_command(doctor, in_plugin);
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_THAT(r.out, HasSubstr("PASS  connect to " + kMon));
  EXPECT_THAT(r.out, HasSubstr("PASS  plugin's route to " + kMon));
  EXPECT_THAT(r.out, HasSubstr("via 198.18.1.2 dev " + plugin.va));

  // The plugin pod without the storage network: the holder's lines still
  // pass, the plugin's own line fails and says what to give it.
  plugin.del_route();
  auto cut = run_command(doctor, in_plugin);
  EXPECT_EQ(cut.exit_code, 1) << cut.describe();
  auto lines = fail_lines(cut.out);
  ASSERT_EQ(lines.size(), 1u) << cut.out;
  EXPECT_THAT(lines[0], HasSubstr("plugin's route to " + kMon));
  EXPECT_THAT(lines[0], HasSubstr("no route from doctor's own namespace net:[" +
                                  std::to_string(plugin.inspected.ns_id().ino) + "]"));
  EXPECT_THAT(cut.out, HasSubstr("hint: ceph-csi opens its own RADOS connections"));
  EXPECT_THAT(cut.out, HasSubstr("PASS  connect to " + kMon));
}

TEST(InspectCli, GuardCountsAndWaitsUntilTheSessionCloses) {
  NEED_CLI();
  StorageNet net;
  auto session = net.open_session();

  auto count =
      exec({"guard", "--count", "--netns", net.inspected.ns_path(), "--allow-unrecorded-netns"});
  ASSERT_TRUE(count.ok()) << count.describe();
  EXPECT_EQ(count.out, "1\n");

  Process guard({kExec, "guard", "--wait-idle", "--netns", net.inspected.ns_path(),
                 "--allow-unrecorded-netns", "--max-wait", "30s", "--log-interval", "300ms"});
  EXPECT_FALSE(guard.wait(1500ms).has_value()) << "returned while a session was open";
  auto closed = Clock::now();
  session.client.reset();
  auto status = guard.wait(5s);
  auto took = Clock::now() - closed;
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << guard.err();
  EXPECT_LT(took, test::scaled(1s));
  EXPECT_THAT(guard.err(), HasSubstr(kMon)) << "open sessions are logged";
}

TEST(InspectCli, GuardGivesUpAtMaxWaitWith124) {
  NEED_CLI();
  StorageNet net;
  auto session = net.open_session();
  auto start = Clock::now();
  auto r = exec({"guard", "--wait-idle", "--netns", net.inspected.ns_path(),
                 "--allow-unrecorded-netns", "--max-wait", "800ms"});
  auto took = Clock::now() - start;
  EXPECT_EQ(r.exit_code, 124) << r.describe();
  EXPECT_GE(took, 800ms);
  EXPECT_LT(took, test::scaled(3s));
  EXPECT_THAT(r.err, HasSubstr("gave up"));
}

TEST(InspectCli, InspectAndDoctorShowARealHoldersIdentity) {
  NEED_CLI();
  TempDir dir;
  std::string id = unique_name("h");
  std::string link = dir / (id + ".net.ns");
  Process holder(
      {"unshare", "--net", "--", NETNS_HOLDER_BIN, "--cluster-id", id, "--dir", dir.path()});
  auto published = [&] {
    return ::access((dir / (id + ".holder.json")).c_str(), F_OK) == 0 &&
           ::access(link.c_str(), F_OK) == 0;
  };
  wait_until([&] { return published() || !holder.running(); }, 10s);
  ASSERT_TRUE(published()) << holder.err();

  auto json = exec({"inspect", "--netns", link, "--json"});
  ASSERT_TRUE(json.ok()) << json.describe();
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["namespace"]["cluster_id"], id);
  EXPECT_EQ(doc["namespace"]["holder"]["pid"], holder.pid());
  EXPECT_EQ(doc["namespace"]["holder"]["alive"], true);
  EXPECT_EQ(doc["namespace"]["netns_ino"],
            ns_id_of_path("/proc/" + std::to_string(holder.pid()) + "/ns/net").ino);

  auto doctor = exec({"doctor", "--netns", link});
  EXPECT_THAT(doctor.out, HasSubstr("PASS  holder alive"));
  EXPECT_THAT(doctor.out, HasSubstr("PASS  identity matches"));
  EXPECT_THAT(doctor.out, HasSubstr("FAIL  lo up")) << "unshare --net leaves lo down";

  // SIGKILL: the holder cannot clean up; its link now names a dead process.
  holder.kill(SIGKILL);
  ASSERT_TRUE(holder.wait(5s).has_value());
  auto dead = exec({"doctor", "--netns", link});
  EXPECT_EQ(dead.exit_code, 1) << dead.describe();
  auto lines = fail_lines(dead.out);
  ASSERT_EQ(lines.size(), 1u) << dead.out;
  EXPECT_THAT(lines[0], HasSubstr("file exists"));
  EXPECT_THAT(lines[0], HasSubstr("dangling"));
  EXPECT_THAT(lines[0], HasSubstr(id));
}

// The holder died (SIGKILL: its files stay, its link names a dead process)
// while its pod sandbox (here a plain process in the namespace) keeps the
// namespace and whatever kernel sessions are in it. inspect refuses as
// always; --holder-gone finds the namespace by the record, through the
// process still in it, and shows it under a warning that no live holder
// vouches for it; it still refuses what is not a network namespace, and says
// so when the sandbox is gone too.
TEST(InspectCli, HolderGoneLooksIntoTheNamespaceItsSandboxKeeps) {
  NEED_CLI();
  TempDir dir;
  auto sandbox = std::make_unique<NetnsChild>();
  const NsId sandbox_ns = sandbox->ns_id();
  std::string id = unique_name("gone");
  std::string link = dir / (id + ".net.ns");
  Process holder({"nsenter", "--net=" + sandbox->ns_path(), "--", NETNS_HOLDER_BIN, "--cluster-id",
                  id, "--dir", dir.path()});
  auto published = [&] {
    return ::access((dir / (id + ".holder.json")).c_str(), F_OK) == 0 &&
           ::access(link.c_str(), F_OK) == 0;
  };
  wait_until([&] { return published() || !holder.running(); }, 10s);
  ASSERT_TRUE(published()) << holder.err();
  holder.kill(SIGKILL);
  ASSERT_TRUE(holder.wait(5s).has_value());

  auto refused = exec({"inspect", "--netns", link});
  EXPECT_EQ(refused.exit_code, 125) << refused.describe();

  auto json = exec({"inspect", "--netns", link, "--holder-gone", "--json"});
  ASSERT_TRUE(json.ok()) << json.describe();
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["namespace"]["netns_ino"], sandbox_ns.ino);
  EXPECT_EQ(doc["namespace"]["cluster_id"], id);
  EXPECT_EQ(doc["namespace"]["holder"]["alive"], false);
  ASSERT_TRUE(doc["holder_gone"].is_string()) << json.out;
  EXPECT_THAT(doc["holder_gone"].get<std::string>(),
              HasSubstr("NO LIVE HOLDER VOUCHES FOR THIS NAMESPACE"));
  EXPECT_THAT(json.err, HasSubstr("NO LIVE HOLDER VOUCHES FOR THIS NAMESPACE")) << "loud on stderr";
  EXPECT_THAT(json.err, HasSubstr("/proc/" + std::to_string(sandbox->pid()) + "/ns/net"));

  auto table = exec({"inspect", "--netns", link, "--holder-gone"});
  ASSERT_TRUE(table.ok()) << table.describe();
  EXPECT_EQ(table.out.rfind("WARNING: NO LIVE HOLDER VOUCHES", 0), 0u) << table.out;

  // Still only a network namespace: a file that is none is refused.
  const std::string plain = dir / "plain-file";
  std::ofstream(plain) << "not a namespace\n";
  auto not_ns = exec({"inspect", "--netns", plain, "--holder-gone"});
  EXPECT_EQ(not_ns.exit_code, 125) << not_ns.describe();
  EXPECT_THAT(not_ns.err, HasSubstr(plain));

  // The sandbox gone too: nothing is left to look into, and it says so.
  sandbox.reset();
  auto nothing = exec({"inspect", "--netns", link, "--holder-gone"});
  EXPECT_EQ(nothing.exit_code, 125) << nothing.describe();
  // Tests beside this one make namespaces, and the kernel may give one of them
  // the inode number just freed: then a process is in "net:[ino]" but the
  // record's cookie tells it is another namespace, and that refusal is right too.
  EXPECT_THAT(nothing.err,
              AnyOf(HasSubstr("no process is in net:[" + std::to_string(sandbox_ns.ino)),
                    HasSubstr("another namespace that got the same inode number")))
      << nothing.describe();
}

TEST(InspectCli, DoctorAndInspectTakeAHoldersSocket) {
  NEED_CLI();
  TempDir dir;
  std::string id = unique_name("s");
  std::string sock = dir / (id + ".net.sock");
  Process holder({"unshare", "--net", "--", NETNS_HOLDER_BIN, "--cluster-id", id, "--dir",
                  dir.path(), "--socket"});
  wait_until([&] { return ::access(sock.c_str(), F_OK) == 0 || !holder.running(); }, 10s);
  ASSERT_EQ(::access(sock.c_str(), F_OK), 0) << holder.err();

  auto doctor = exec({"doctor", "--socket", sock});
  EXPECT_EQ(doctor.exit_code, 1) << doctor.describe();  // lo is down: unshare --net
  EXPECT_THAT(doctor.out, HasSubstr("PASS  header matches"));
  EXPECT_THAT(doctor.out, HasSubstr("PASS  socket server trusted"));
  EXPECT_THAT(fail_lines(doctor.out), testing::Contains(HasSubstr("lo up")));

  auto json = exec({"inspect", "--socket", sock, "--json"});
  ASSERT_TRUE(json.ok()) << json.describe();
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["namespace"]["cluster_id"], id);
  EXPECT_EQ(doc["namespace"]["netns_ino"],
            ns_id_of_path("/proc/" + std::to_string(holder.pid()) + "/ns/net").ino);
}

TEST(InspectCli, InspectJsonListsAVxlanKernelSocket) {
  NEED_CLI();
  StorageNet net;
  std::string vx = unique_name("vx");
  must(net.inspected.run({"ip", "link", "add", vx, "type", "vxlan", "id", "7", "dstport", "4789",
                          "remote", kCephGateway, "dev", net.va}),
       "vxlan");
  must(net.inspected.run({"ip", "link", "set", vx, "up"}), "vxlan up");
  auto r =
      exec({"inspect", "--netns", net.inspected.ns_path(), "--allow-unrecorded-netns", "--json"});
  ASSERT_TRUE(r.ok()) << r.describe();
  auto doc = nlohmann::json::parse(r.out);
  bool link = false, sock = false;
  for (const auto& l : doc["interfaces"]) link |= l["name"] == vx && l["kind"] == "vxlan";
  for (const auto& s : doc["kernel_sockets"])
    sock |= s["proto"] == "udp" && s["local_port"] == 4789;
  EXPECT_TRUE(link) << r.out;
  EXPECT_TRUE(sock) << r.out;
}

// The holder pod's preStop hook: no capabilities, its own namespace. Reading
// one's own namespace must not need setns().
TEST(InspectCli, GuardReadsItsOwnNamespaceWithoutPrivileges) {
  NEED_CLI();
  auto r = run_command({"unshare", "--net", "--", "setpriv", "--reuid", "65534", "--regid", "65534",
                        "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--", kExec,
                        "guard", "--count", "--netns", "/proc/self/ns/net", "--allow-own-netns"});
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, "0\n");
}

}  // namespace
}  // namespace netns::test
