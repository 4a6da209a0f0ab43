// The namespace files people use besides a holder's (/run/netns/NAME from
// `ip netns add`, /proc/PID/ns/net) have no record and are in no holder
// directory: nothing proves whose namespace they are, or that the process
// behind them is still the one meant. Each interface refuses them (125,
// untrusted, the command did not run, the message names the path, the
// missing record and the opt-in) unless the caller opts in explicitly, with
// the same option in the CLI, the nsenter form, C++ and the C ABI (Go:
// executor/go/netnsexec, TestUnrecordedNamespaceFileNeedsTheOptIn). Each
// refusal has its control: the same file with the opt-in runs there.
#include <sys/stat.h>
#include <unistd.h>

#include "exec_fixture.hpp"
#include "netns/error.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/netns_exec.h"
#include "netns_exec/source.hpp"

namespace netns::test::exec {
namespace {

namespace ex = netns::exec;

// A named namespace as `ip netns add` makes it (a bind mount on
// /run/netns/NAME), removed again by the same tool.
class NamedNetns {
 public:
  NamedNetns() : name_(unique_name("unrec")) {
    RunResult r = run_command({"ip", "netns", "add", name_});
    if (!r.ok()) throw std::runtime_error("ip netns add " + name_ + ": " + r.describe());
  }
  ~NamedNetns() { (void)run_command({"ip", "netns", "delete", name_}); }
  NamedNetns(const NamedNetns&) = delete;
  NamedNetns& operator=(const NamedNetns&) = delete;
  [[nodiscard]] std::string path() const { return "/run/netns/" + name_; }
  [[nodiscard]] uint64_t ino() const {
    struct stat st {};
    return ::stat(path().c_str(), &st) == 0 ? st.st_ino : 0;
  }

 private:
  std::string name_;
};

struct Unrecorded : ExecFixture {
  void SetUp() override {
    ExecFixture::SetUp();
    if (IsSkipped()) return;
    named.emplace();
    child.emplace();
    files = {{named->path(), named->ino()}, {child->ns_path(), child->ns_id().ino}};
  }
  // The command's readlink of its namespace, and the marker.
  [[nodiscard]] std::vector<std::string> command() const {
    return {"--", "sh", "-c", "readlink /proc/self/ns/net; touch " + marker};
  }
  static std::string ns_line(uint64_t ino) { return "net:[" + std::to_string(ino) + "]\n"; }
  void ran_in(const RunResult& r, uint64_t ino, const std::string& what) const {
    EXPECT_TRUE(r.ok()) << what << ": " << r.describe();
    EXPECT_EQ(r.out, ns_line(ino)) << what;
    EXPECT_TRUE(marker_exists()) << what << ": the command did not run";
    ::unlink(marker.c_str());
  }
  std::optional<NamedNetns> named;
  std::optional<NetnsChild> child;
  std::vector<std::pair<std::string, uint64_t>> files;
};

TEST_F(Unrecorded, TheCliRefusesThemWithoutTheOptIn) {
  for (const auto& [path, ino] : files) {
    std::vector<std::string> args{"run", "--netns", path};
    for (const auto& a : command()) args.push_back(a);
    expect_refused(exec(args), {"no holder record vouches for \"" + path + "\"",
                                "is not a holder directory", "--allow-unrecorded-netns"});
    args.insert(args.begin() + 1, "--allow-unrecorded-netns");
    ran_in(exec(args), ino, "run --allow-unrecorded-netns --netns " + path);
  }
}

// The nsenter form (ceph-csi's `nsenter --net=PATH -- CMD` with the drop-in
// installed) takes its one opt-in from the environment, like
// NETNS_EXEC_IDENTITY: its call line is ceph-csi's. A value the
// documentation does not give is refused, naming the variable.
TEST_F(Unrecorded, TheNsenterFormRefusesThemWithoutTheEnvironmentsOptIn) {
  const std::string bin = tmp / "bin";
  ASSERT_EQ(::mkdir(bin.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (bin + "/nsenter").c_str()), 0);
  for (const auto& [path, ino] : files) {
    std::vector<std::string> argv{bin + "/nsenter", "--net=" + path};
    for (const auto& a : command()) argv.push_back(a);
    RunOptions options;
    options.env = std::map<std::string, std::string>{{"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}};
    expect_refused(run_command(argv, options), {"no holder record vouches for \"" + path + "\"",
                                                "NETNS_EXEC_ALLOW_UNRECORDED_NETNS=1"});
    (*options.env)["NETNS_EXEC_ALLOW_UNRECORDED_NETNS"] = "0";
    expect_refused(run_command(argv, options), {"no holder record vouches for"});
    (*options.env)["NETNS_EXEC_ALLOW_UNRECORDED_NETNS"] = "yes";
    expect_refused(run_command(argv, options), {"NETNS_EXEC_ALLOW_UNRECORDED_NETNS", "\"1\""});
    (*options.env)["NETNS_EXEC_ALLOW_UNRECORDED_NETNS"] = "1";
    ran_in(run_command(argv, options), ino,
           "NETNS_EXEC_ALLOW_UNRECORDED_NETNS=1 nsenter --net=" + path);
  }
}

TEST_F(Unrecorded, ResolveThrowsWithoutTheOptIn) {
  for (const auto& [path, ino] : files) {
    try {
      (void)ex::resolve(ex::Source::netns_path(path));
      ADD_FAILURE() << path << " was resolved with no record and no opt-in";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::untrusted) << e.describe();
      EXPECT_NE(e.describe().find("\"" + path + "\""), std::string::npos) << e.describe();
      EXPECT_NE(e.describe().find("allow_unrecorded_netns"), std::string::npos) << e.describe();
    }
    ex::ResolveOptions options;
    options.allow_unrecorded_netns = true;
    ex::ResolvedNamespace ns = ex::resolve(ex::Source::netns_path(path), options);
    EXPECT_TRUE(ns.fd) << path;
    EXPECT_EQ(ns.id.ino, ino) << path;
    EXPECT_FALSE(ns.record) << path;
  }
}

TEST_F(Unrecorded, TheCAbiRefusesThemWithoutTheOptIn) {
  for (const auto& [path, ino] : files) {
    netns_exec_request* req = netns_exec_request_new();
    ASSERT_NE(req, nullptr);
    const std::string script = "readlink /proc/self/ns/net; touch " + marker;
    const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
    ASSERT_EQ(netns_exec_request_set_argv(req, argv), 0);
    ASSERT_EQ(netns_exec_request_set_netns(req, path.c_str()), 0);
    netns_exec_result* res = netns_exec_run(req);
    ASSERT_NE(res, nullptr);
    EXPECT_EQ(netns_exec_result_outcome(res), NETNS_EXEC_OUTCOME_REFUSED) << path;
    EXPECT_EQ(netns_exec_result_exit_code(res), 125) << path;
    EXPECT_EQ(netns_exec_result_errc(res), NETNS_EXEC_ERR_UNTRUSTED) << path;
    const std::string message = netns_exec_result_error(res);
    EXPECT_NE(message.find("\"" + path + "\""), std::string::npos) << message;
    EXPECT_NE(message.find("netns_exec_request_set_allow_unrecorded_netns"), std::string::npos)
        << message;
    EXPECT_FALSE(marker_exists()) << path << ": the command ran";
    netns_exec_result_free(res);

    EXPECT_EQ(netns_exec_request_set_allow_unrecorded_netns(req, 1), 0);
    EXPECT_EQ(netns_exec_request_set_allow_unrecorded_netns(nullptr, 1), -EINVAL);
    res = netns_exec_run(req);
    ASSERT_NE(res, nullptr);
    EXPECT_EQ(netns_exec_result_outcome(res), NETNS_EXEC_OUTCOME_EXITED)
        << netns_exec_result_error(res);
    EXPECT_EQ(netns_exec_result_exit_code(res), 0);
    EXPECT_EQ(std::string(netns_exec_result_stdout(res, nullptr)), ns_line(ino));
    EXPECT_TRUE(marker_exists()) << path << ": the command did not run";
    ::unlink(marker.c_str());
    netns_exec_result_free(res);
    netns_exec_request_free(req);
  }
}

// A holder's own link needs no opt-in (its record vouches for it), and the
// opt-in does not relax the record check for one (the control on the other
// side: a holder's link whose record is missing stays refused).
TEST_F(Unrecorded, AHoldersLinkNeedsNoOptInAndTheOptInWaivesNoRecord) {
  NetnsChild holder;
  publish_holder(holder_dir, "ceph-a", holder);
  std::vector<std::string> args{"run", "--netns", holder_dir + "/ceph-a.net.ns"};
  for (const auto& a : command()) args.push_back(a);
  ran_in(exec(args), holder.ns_id().ino, "a holder's link");
  ASSERT_EQ(::unlink((holder_dir + "/ceph-a.holder.json").c_str()), 0);
  args.insert(args.begin() + 1, "--allow-unrecorded-netns");
  expect_refused(exec(args), {"must come with its record"});
}

}  // namespace
}  // namespace netns::test::exec
