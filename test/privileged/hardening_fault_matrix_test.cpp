// The fault matrix (issue 8): every fault from the list against a
// live holder. For each: the command never ran (it would have left a marker
// file), the exit status is 125, and the message names the cause. The rows
// become a Markdown table, compared with the committed design/fault-matrix.md:
// the test fails when the document is out of date, and
//   NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix
// rewrites it. Temp paths and numbers (pids, inodes, start times) are
// normalized so the table is the same on every run and machine.
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "holder_helpers.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/kernel_ids.hpp"
#include "netns/proc.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/netns_exec.h"

namespace {

using namespace std::chrono_literals;

using holder_test::Holder;
using netns::test::NetnsChild;
using netns::test::RunResult;
using netns::test::TempDir;

constexpr const char* kId = "ceph-a";  // the holder's dir is private, so the ID need not be unique
constexpr uid_t kNobody = 65534;

struct Row {
  std::string fault;
  int exit_status = -1;
  std::string message;  // first line, raw
};

// Numbers that differ between runs (pids, start times), each with the
// placeholder the table shows instead.
using Placeholders = std::vector<std::pair<std::string, std::string>>;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

void write_file(const std::string& path, const std::string& text, mode_t mode = 0644) {
  netns::UniqueFd fd = netns::open_fd(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  netns::write_all(fd.get(), text, path);
}

void make_dir(const std::string& path, mode_t mode = 0755) {
  ASSERT_EQ(::mkdir(path.c_str(), mode), 0) << path;
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;  // umask
}

void make_link(const std::string& target, const std::string& path) {
  ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path << " -> " << target;
}

// A bound SEQPACKET socket at `path`; listening when `listen` is set.
netns::UniqueFd bind_socket(const std::string& path, bool listen) {
  netns::UniqueFd sock = netns::make_socket(AF_UNIX, SOCK_SEQPACKET, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    throw netns::Error::sys("bind", path, errno);
  if (listen && ::listen(sock.get(), 4) != 0) throw netns::Error::sys("listen", path, errno);
  return sock;
}

// Replaces every occurrence of `from` that is not part of a longer number.
std::string replace_number(std::string text, const std::string& from, const std::string& to) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos;) {
    size_t end = at + from.size();
    if ((at > 0 && digit(text[at - 1])) || (end < text.size() && digit(text[end]))) {
      at = end;
      continue;
    }
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

// Paths and numbers vary between runs; the table must not. Only the values
// known to vary are replaced, as whole numbers, so every other number in a
// message (a version, a size, a JSON position) stays visible and checked.
// (No std::regex: GCC 12 warns inside it under -fsanitize=address.)
std::string normalize(std::string text, const std::string& tmp, const Placeholders& numbers) {
  for (size_t at; (at = text.find(tmp)) != std::string::npos;) text.replace(at, tmp.size(), "$TMP");
  for (const auto& [number, placeholder] : numbers) text = replace_number(text, number, placeholder);
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// fs.protected_symlinks set for a scope and put back: the sysctl is the
// machine's, and a row needs the value that check must not depend on.
class ProtectedSymlinks {
 public:
  explicit ProtectedSymlinks(const std::string& value) {
    saved_ = netns::read_file(kPath);
    set(value);
  }
  ~ProtectedSymlinks() { set(saved_); }
  ProtectedSymlinks(const ProtectedSymlinks&) = delete;
  ProtectedSymlinks& operator=(const ProtectedSymlinks&) = delete;

 private:
  static constexpr const char* kPath = "/proc/sys/fs/protected_symlinks";
  static void set(const std::string& value) {
    netns::UniqueFd fd = netns::open_fd(kPath, O_WRONLY);
    netns::write_all(fd.get(), value, kPath);
  }
  std::string saved_;
};

class FaultMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    NETNS_REQUIRE_ROOT();
    // Traversable by the unprivileged row's uid; the marker dir is writable
    // by it, so a command that ran as that uid would leave its marker too.
    ASSERT_EQ(::chmod(tmp.path().c_str(), 0755), 0);
    make_dir(holder_dir);
    make_dir(marker_dir, 0777);
    holder = std::make_unique<Holder>(holder_dir, kId, std::vector<std::string>{"--socket"});
    ASSERT_TRUE(holder->wait_ready()) << holder->err();
    record_text = netns::read_file(holder_dir + "/" + kId + ".holder.json");
  }

  std::string marker() const { return marker_dir + "/ran"; }
  bool marker_exists() const { return holder_test::exists(marker()); }

  // netns-exec ARGS -- sh -c 'echo ran > MARKER', optionally as another uid.
  RunResult exec(std::vector<std::string> args, std::optional<uid_t> uid = std::nullopt,
                 const std::vector<std::string>& wrapper = {}) {
    ::unlink(marker().c_str());
    std::vector<std::string> argv = wrapper;
    argv.push_back(NETNS_EXEC_BIN);
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--", "sh", "-c", "echo ran > " + marker()});
    netns::test::RunOptions options = holder_test::within(20s);
    if (uid) {
      uid_t u = *uid;
      options.child_setup = [u] {
        if (::setgroups(0, nullptr) != 0 || ::setgid(u) != 0 || ::setuid(u) != 0) ::_exit(99);
      };
    }
    return netns::test::run_command(argv, options);
  }

  // One faulty row through the CLI: refused with 125, the command never ran,
  // the one-line message names every `cause`.
  void refused(const std::string& fault, const std::vector<std::string>& args,
               const std::vector<std::string>& causes, std::optional<uid_t> uid = std::nullopt,
               const std::vector<std::string>& wrapper = {}) {
    RunResult r = exec(args, uid, wrapper);
    EXPECT_FALSE(marker_exists()) << fault << ": the command ran";
    EXPECT_EQ(r.exit_code, 125) << fault << ": " << r.describe();
    EXPECT_FALSE(r.signaled || r.timed_out) << fault << ": " << r.describe();
    for (const auto& cause : causes)
      EXPECT_NE(r.err.find(cause), std::string::npos) << fault << ": message lacks " << cause << ":\n" << r.err;
    EXPECT_EQ(holder_test::line_count(r.err), 1u) << fault << ": not one line:\n" << r.err;
    rows.push_back({fault, r.exit_code, first_line(r.err)});
  }

  // netns-exec ARGS with stub rbd, mount, umount and ceph-fuse first in PATH,
  // each of which would leave the marker: the Ceph operations' paths.
  RunResult exec_op(const std::vector<std::string>& args) {
    ::unlink(marker().c_str());
    std::vector<std::string> argv = {NETNS_EXEC_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    netns::test::RunOptions options = holder_test::within(20s);
    options.env = std::map<std::string, std::string>{{"PATH", stub_dir() + ":/usr/sbin:/usr/bin:/sbin:/bin"}};
    return netns::test::run_command(argv, options);
  }
  void refused_op(const std::string& fault, const std::vector<std::string>& args,
                  const std::vector<std::string>& causes) {
    RunResult r = exec_op(args);
    EXPECT_FALSE(marker_exists()) << fault << ": the command ran";
    EXPECT_EQ(r.exit_code, 125) << fault << ": " << r.describe();
    for (const auto& cause : causes)
      EXPECT_NE(r.err.find(cause), std::string::npos) << fault << ": message lacks " << cause << ":\n" << r.err;
    rows.push_back({fault, r.exit_code, first_line(r.err)});
  }
  std::string stub_dir() const { return tmp / "stubs"; }
  void make_stubs() {
    make_dir(stub_dir());
    for (const char* name : {"rbd", "mount", "umount", "ceph-fuse", "modprobe"})
      write_file(stub_dir() + "/" + name, "#!/bin/sh\necho ran > " + marker() + "\n", 0755);
  }

  // A directory holding <ID>.net.ns -> `target` and, when given, <ID>.holder.json.
  std::string fake_holder_dir(const std::string& name, const std::string& target,
                              const std::optional<std::string>& record) {
    std::string dir = tmp / name;
    make_dir(dir);
    make_link(target, dir + "/" + kId + ".net.ns");
    if (record) write_file(dir + "/" + kId + ".holder.json", *record);
    return dir + "/" + kId + ".net.ns";
  }

  netns::HolderRecord live_record() const { return netns::parse_record(record_text, "record"); }

  TempDir tmp;
  const std::string holder_dir = tmp / "holder";
  const std::string marker_dir = tmp / "marker";
  std::unique_ptr<Holder> holder;
  std::string record_text;
  std::vector<Row> rows;
  Placeholders numbers;
};

TEST_F(FaultMatrix, EveryFaultIsRefusedBeforeTheCommandRuns) {
  const std::string link = holder_dir + "/" + kId + ".net.ns";
  const std::string sock = holder_dir + "/" + kId + ".net.sock";
  const std::string holder_ns = "/proc/" + std::to_string(holder->pid()) + "/ns/";
  numbers.emplace_back(std::to_string(holder->pid()), "<holder-pid>");
  numbers.emplace_back(std::to_string(live_record().pid_start_time), "<holder-start-time>");
  numbers.emplace_back(std::to_string(live_record().pidns_ino), "<our-pidns-ino>");
  numbers.emplace_back(std::to_string(netns::current_netns_id().ino), "<our-netns-ino>");

  // Control: the live holder's link runs the command, so "no marker" below
  // means refused, not broken.
  {
    RunResult r = exec({"run", "--netns", link});
    ASSERT_TRUE(r.ok()) << r.describe();
    ASSERT_TRUE(marker_exists());
  }

  refused("missing file", {"run", "--netns", tmp / "absent/ceph-a.net.ns"},
          {"ENOENT", "does not exist"});
  make_dir(tmp / "empty");
  refused("missing file in an existing dir", {"run", "--netns", tmp / "empty/ceph-a.net.ns"},
          {"ENOENT", "cluster \"ceph-a\""});
  refused("dangling link", {"run", "--netns", fake_holder_dir("dangling", tmp / "nowhere/net", std::nullopt)},
          {"dangling symlink", "ENOENT"});
  {
    // The record still names the holder's start time and namespace, but its
    // pid now belongs to an unrelated live process (in another namespace).
    NetnsChild unrelated;
    netns::HolderRecord reused = live_record();
    reused.pid = unrelated.pid();
    numbers.emplace_back(std::to_string(unrelated.pid()), "<unrelated-pid>");
    numbers.emplace_back(std::to_string(netns::pid_start_time(unrelated.pid()).value_or(0)),
                         "<unrelated-start-time>");
    refused("link to a live unrelated namespace, holder's record in place (pid reuse)",
            {"run", "--netns", fake_holder_dir("reused", unrelated.ns_path(), netns::serialize_record(reused))},
            {"reused by another process", "start time"});
  }
  refused("link to the caller's own namespace",
          {"run", "--netns", fake_holder_dir("own", "/proc/" + std::to_string(::getpid()) + "/ns/net", std::nullopt)},
          {"own network namespace"});
  // What a holder that is PID 1 of its pid namespace would publish. Read by a
  // plugin without hostPID, /proc/1 is its own pod's first process, which
  // shares the plugin's network namespace. The executor runs as PID 1 of a
  // fresh pid namespace with its own /proc here, so /proc/1 means the same on
  // every machine (the real init's namespace may not even be readable).
  refused("link to /proc/1/ns/net (read from a pod's pid namespace)",
          {"run", "--netns", fake_holder_dir("init", "/proc/1/ns/net", std::nullopt)},
          {"own network namespace"}, std::nullopt,
          {"unshare", "--pid", "--fork", "--mount-proc", "--kill-child"});
  {
    // The record of a holder in another pid namespace: its pid means another
    // process to us, so nothing else in it can be checked.
    netns::HolderRecord foreign = live_record();
    foreign.pidns_ino += 1;
    numbers.emplace_back(std::to_string(foreign.pidns_ino), "<other-pidns-ino>");
    refused("record from a holder in another pid namespace",
            {"run", "--netns", fake_holder_dir("pidns", holder_ns + "net", netns::serialize_record(foreign))},
            {"pid namespace", "hostPID"});
  }
  refused("mount-namespace file", {"run", "--netns", holder_ns + "mnt"}, {"not a network namespace", "mnt"});
  refused("pid-namespace file", {"run", "--netns", holder_ns + "pid"}, {"not a network namespace", "pid"});
  write_file(tmp / "regular", "not a namespace\n");
  refused("regular file", {"run", "--netns", tmp / "regular"}, {"not a namespace file"});
  make_dir(tmp / "adir");
  refused("directory", {"run", "--netns", tmp / "adir"}, {"not a namespace file"});
  make_dir(tmp / "loop");
  make_link("b.net.ns", tmp / "loop/a.net.ns");
  make_link("a.net.ns", tmp / "loop/b.net.ns");
  refused("symlink loop", {"run", "--netns", tmp / "loop/a.net.ns"}, {"ELOOP"});
  refused("unreadable file (the holder's link, as uid 65534)", {"run", "--netns", link}, {"EACCES"}, kNobody);
  {
    std::string future = record_text;
    size_t at = future.find("\"version\": 2,");
    ASSERT_NE(at, std::string::npos) << record_text;
    future.replace(at, 13, "\"version\": 3,");
    refused("record with a future version",
            {"run", "--netns", fake_holder_dir("future", holder_ns + "net", future)},
            {"record version 3 is not supported"});
  }
  {
    netns::HolderRecord other = live_record();
    other.cluster_id = "ceph-b";
    refused("record for another cluster ID",
            {"run", "--netns", fake_holder_dir("other", holder_ns + "net", netns::serialize_record(other))},
            {"for cluster \"ceph-b\", not \"ceph-a\""});
  }

  const std::string config = tmp / "config.json";
  write_file(config, "[{\"clusterID\": \"ceph-a\", \"monitors\": [\"198.18.0.1:6789\"], "
                     "\"rbd\": {\"netNamespaceFilePath\": \"" + link + "\"}}]\n");
  {
    // Control: the config path works.
    RunResult r = exec({"run", "--cluster-id", kId, "--config", config});
    ASSERT_TRUE(r.ok()) << r.describe();
    ASSERT_TRUE(marker_exists());
  }
  refused("cluster ID with traversal", {"run", "--cluster-id", "../../etc/x", "--config", config},
          {"invalid cluster ID", "not allowed"});
  refused("config missing", {"run", "--cluster-id", kId, "--config", tmp / "absent.json"}, {"ENOENT", "absent.json"});
  write_file(tmp / "malformed.json", "[{\"clusterID\": \"ceph-a\",\n");
  write_file(tmp / "foreign.json", netns::read_file(config));
  ASSERT_EQ(::chown((tmp / "foreign.json").c_str(), kNobody, kNobody), 0);
  refused("config owned by an unprivileged user", {"run", "--cluster-id", kId, "--config", tmp / "foreign.json"},
          {"is owned by uid 65534", "foreign.json"});
  write_file(tmp / "writable.json", netns::read_file(config), 0666);
  ASSERT_EQ(::chmod((tmp / "writable.json").c_str(), 0666), 0);
  refused("config writable by others", {"run", "--cluster-id", kId, "--config", tmp / "writable.json"},
          {"is writable by group or others", "writable.json"});
  refused("config malformed", {"run", "--cluster-id", kId, "--config", tmp / "malformed.json"}, {"parse", "malformed.json"});
  // ceph-csi's encoding/json fails the whole file on a wrong type anywhere,
  // so ceph-csi uses no cluster of it: neither does netns-exec, though this
  // entry (keys spelled as Go folds them) names the live holder.
  write_file(tmp / "mistyped.json", "[{\"ClusterID\": \"ceph-a\", \"RBD\": {\"NetNamespaceFilePath\": \"" +
                                        link + "\"}}, {\"clusterID\": \"ceph-b\", \"monitors\": \"198.18.0.1\"}]\n");
  refused("config with a wrong type in another cluster's entry",
          {"run", "--cluster-id", kId, "--config", tmp / "mistyped.json"},
          {"entry 2, field \"monitors\" is a string", "ceph-csi uses no cluster of it"});
  refused("cluster absent from the config", {"run", "--cluster-id", "ceph-z", "--config", config},
          {"cluster \"ceph-z\" is not in"});

  {
    std::string path = tmp / "deaf.net.sock";
    { netns::UniqueFd gone = bind_socket(path, false); }  // the file stays, nobody listens
    refused("socket path with no listener", {"run", "--socket", path}, {"ECONNREFUSED", "no holder is listening"});
  }
  {
    std::string path = tmp / "garbage.net.sock";
    netns::UniqueFd listener = bind_socket(path, true);
    std::thread server([fd = listener.get()] {
      // Accepts one client and answers with bytes that are not a header and
      // carry no descriptor. Bounded: the CLI's connect comes within seconds.
      pollfd pfd{fd, POLLIN, 0};
      if (::poll(&pfd, 1, 10000) != 1) return;
      netns::UniqueFd conn = netns::accept_fd(fd);
      const char garbage[] = "HTTP/1.1 200 OK\r\n\r\nnot a netns header";
      (void)!::send(conn.get(), garbage, sizeof garbage, MSG_NOSIGNAL);
    });
    refused("socket that accepts and sends garbage", {"run", "--socket", path}, {"bad header", "garbage.net.sock"});
    server.join();
  }

  // --- provenance: who wrote the files (issue 12) ---------------------------
  // Each fake directory below holds a link to the live holder's namespace and
  // a record that matches it in every field (all of them are public), so the
  // only thing wrong is who could have written them.
  {
    std::string path = fake_holder_dir("open", holder_ns + "net", record_text);
    ASSERT_EQ(::chmod((tmp / "open").c_str(), 0777), 0);
    refused("holder directory writable by others (0777), with a link and a matching record",
            {"run", "--netns", path}, {"writable by group or others", "0777"});
    ASSERT_EQ(::chmod((tmp / "open").c_str(), 01777), 0);
    refused("holder directory sticky and world-writable (1777)", {"run", "--netns", path},
            {"writable by group or others", "1777"});
  }
  {
    // The last component of the path is a symlink an unprivileged user made to
    // a directory of its own.
    std::string path = fake_holder_dir("users", holder_ns + "net", record_text);
    ASSERT_EQ(::chown((tmp / "users").c_str(), kNobody, kNobody), 0);
    make_link(tmp / "users", tmp / "via-symlink");
    refused("holder directory is a symlink to another uid's directory",
            {"run", "--netns", tmp / "via-symlink/ceph-a.net.ns"}, {"owned by uid 65534", "--trust-uid"});
  }
  {
    std::string path = fake_holder_dir("foreign-link", holder_ns + "net", record_text);
    ASSERT_EQ(::lchown(path.c_str(), kNobody, kNobody), 0);
    refused("link owned by another uid", {"run", "--netns", path}, {"link", "owned by uid 65534"});
  }
  {
    std::string path = fake_holder_dir("foreign-record", holder_ns + "net", record_text);
    ASSERT_EQ(::chown((tmp / "foreign-record/ceph-a.holder.json").c_str(), kNobody, kNobody), 0);
    refused("record owned by another uid", {"run", "--netns", path}, {"holder record", "owned by uid 65534"});
  }
  {
    std::string path = fake_holder_dir("rook", holder_ns + "net", std::nullopt);
    refused("link without a record (Rook-era holder) under the default --identity require",
            {"run", "--netns", path}, {"must come with its record", "--identity if-present"});
    RunResult r = exec({"run", "--identity", "if-present", "--netns", path});
    EXPECT_TRUE(r.ok() && marker_exists()) << "--identity if-present accepts it: " << r.describe();
  }

  // --- provenance over every hop ----------------------------------------------
  // Each directory and symlink on the way, the link's own target path and
  // the way to the config included (walked from "/", trusted_path.hpp).
  {
    // The link's target runs through a directory uid 65534 owns: it could
    // put another namespace at that name at any moment.
    make_dir(tmp / "users-tree");
    make_link(holder_ns + "net", tmp / "users-tree/net");
    ASSERT_EQ(::chown((tmp / "users-tree").c_str(), kNobody, kNobody), 0);
    refused("link whose target runs through a directory owned by uid 65534",
            {"run", "--netns", fake_holder_dir("hop-target", tmp / "users-tree/net", record_text)},
            {"owned by uid 65534", "on the way to"});
  }
  {
    // uid 65534's symlink earlier in the path, in a sticky world-writable
    // directory, to the live holder's own directory, with
    // fs.protected_symlinks=0 (the kernel would follow it for root).
    make_dir(tmp / "sticky", 01777);
    make_link(holder_dir, tmp / "sticky/holders");
    const std::string via = tmp / "sticky/holders/ceph-a.net.ns";
    ProtectedSymlinks unprotected("0");
    ASSERT_EQ(::lchown((tmp / "sticky/holders").c_str(), kNobody, kNobody), 0);
    refused("uid 65534's symlink earlier in the path (sticky directory, fs.protected_symlinks=0)",
            {"run", "--netns", via}, {"symlink", "owned by uid 65534"});
    // The control: root's symlink there leads to the live holder and runs.
    ASSERT_EQ(::lchown((tmp / "sticky/holders").c_str(), 0, 0), 0);
    RunResult r = exec({"run", "--netns", via});
    EXPECT_TRUE(r.ok() && marker_exists()) << "root's symlink: " << r.describe();
  }
  {
    // A root-owned, 0644 config in a directory uid 65534 owns: it could
    // replace the file (and the path in it) at any moment.
    make_dir(tmp / "users-config");
    write_file(tmp / "users-config/config.json", netns::read_file(config));
    ASSERT_EQ(::chown((tmp / "users-config").c_str(), kNobody, kNobody), 0);
    refused("config in a directory owned by uid 65534 (the file root's, 0644)",
            {"run", "--cluster-id", kId, "--config", tmp / "users-config/config.json"},
            {"owned by uid 65534", "users-config"});
  }

  // --- the record for every file in a holder directory --------------------------
  {
    // A second link in the live holder's own directory, named otherwise, to
    // a namespace no record describes (a reused pid behind a Rook-era name).
    NetnsChild stray;
    make_link(stray.ns_path(), holder_dir + "/rook-a.net");
    refused("a link named otherwise in a holder directory (no cluster named)",
            {"run", "--netns", holder_dir + "/rook-a.net"}, {"is a holder directory", "without a cluster ID"});
    const std::string for_b = tmp / "config-b.json";
    write_file(for_b, "[{\"clusterID\": \"ceph-b\", \"rbd\": {\"netNamespaceFilePath\": \"" + holder_dir +
                          "/rook-a.net\"}}]\n");
    refused("a file named otherwise in a holder directory, for a cluster with no record there",
            {"run", "--cluster-id", "ceph-b", "--config", for_b}, {"ceph-b.holder.json", "is a holder directory"});
    ASSERT_EQ(::unlink((holder_dir + "/rook-a.net").c_str()), 0);
  }

  // --- a namespace file no holder vouches for ------------------------------------
  // /run/netns/NAME and /proc/PID/ns/net: no record, in no holder directory,
  // so nothing proves whose namespace they are. Refused without the opt-in;
  // the control: with --allow-unrecorded-netns the same file runs.
  {
    NetnsChild plain;
    numbers.emplace_back(std::to_string(plain.pid()), "<plain-pid>");
    const std::string name = "fm-unrecorded-" + std::to_string(::getpid());
    numbers.insert(numbers.begin(), {name, "<name>"});
    ASSERT_TRUE(netns::test::run_command({"ip", "netns", "add", name}).ok()) << "ip netns add " << name;
    struct Delete {
      std::string name;
      ~Delete() { (void)netns::test::run_command({"ip", "netns", "delete", name}); }
    } remove_named{name};
    for (const std::string& file : {plain.ns_path(), "/run/netns/" + name}) {
      refused(file.substr(0, 6) == "/proc/" ? "/proc/PID/ns/net of a process that is no holder (no opt-in)"
                                            : "/run/netns/NAME from `ip netns add` (no opt-in)",
              {"run", "--netns", file}, {"no holder record vouches for", "--allow-unrecorded-netns"});
      RunResult r = exec({"run", "--allow-unrecorded-netns", "--netns", file});
      EXPECT_TRUE(r.ok() && marker_exists()) << "control: " << file << " with the opt-in: " << r.describe();
      ::unlink(marker().c_str());
    }
  }

  // --- which namespace ------------------------------------------------------
  // The namespaces whose inode numbers the table shows live until the table is
  // written, so that no number is reused (and mistaken for another) meanwhile.
  netns::test::Process userns({"unshare", "--user", "--map-root-user", "--net", "sleep", "60"});
  NetnsChild moved;
  NetnsChild other;
  {
    const std::string user_ns = "/proc/" + std::to_string(userns.pid()) + "/ns/user";
    ASSERT_TRUE(netns::test::wait_until(
        [&] { return netns::test::ns_id_of_path(user_ns) != netns::test::ns_id_of_path("/proc/self/ns/user"); },
        5s));
    numbers.emplace_back(std::to_string(netns::test::ns_id_of_path(user_ns).ino), "<other-userns-ino>");
    refused("namespace owned by a non-initial user namespace (unshare -Urn)",
            {"run", "--netns", fake_holder_dir("userns", "/proc/" + std::to_string(userns.pid()) + "/ns/net",
                                               std::nullopt)},
            {"not by the initial user namespace", "unshare -Urn"});
  }
  // The host's namespace, to a caller that is elsewhere (netns-exec runs in a
  // fresh network namespace here). Known on a kernel that gives init_net its
  // fixed inode (6.18 and later), or with hostPID through /proc/1/ns/net.
  refused("the host's network namespace, from a caller in another namespace",
          {"run", "--netns", fake_holder_dir("host", "/proc/" + std::to_string(::getpid()) + "/ns/net", std::nullopt)},
          {"host's network namespace"}, std::nullopt, {"unshare", "--net", "--"});

  // --- the record against the live holder -----------------------------------
  {
    netns::HolderRecord rebooted = live_record();
    rebooted.boot_id = "00000000-0000-0000-0000-000000000000";
    refused("record from before the last reboot (boot id mismatch)",
            {"run", "--netns", fake_holder_dir("boot", holder_ns + "net", netns::serialize_record(rebooted))},
            {"before the last reboot"});
  }
  {
    pid_t gone = 0;
    {
      netns::test::Process exited({"true"});
      gone = exited.pid();
      ASSERT_TRUE(exited.wait(5s).has_value());
    }
    netns::HolderRecord dead = live_record();
    dead.pid = gone;
    numbers.emplace_back(std::to_string(gone), "<exited-pid>");
    refused("record names a pid that is gone",
            {"run", "--netns", fake_holder_dir("gone", holder_ns + "net", netns::serialize_record(dead))},
            {"is gone", "ESRCH"});
  }
  {
    // The record's pid is alive with the recorded start time, and the link
    // opens the recorded namespace, but that process is in another namespace
    // now: what a holder moved with setns would look like.
    netns::HolderRecord record = live_record();
    record.pid = moved.pid();
    record.pid_start_time = netns::pid_start_time(moved.pid()).value_or(0);
    numbers.emplace_back(std::to_string(moved.pid()), "<moved-pid>");
    numbers.emplace_back(std::to_string(record.pid_start_time), "<moved-start-time>");
    numbers.emplace_back(std::to_string(moved.ns_id().ino), "<moved-netns-ino>");
    refused("holder moved to another namespace",
            {"run", "--netns", fake_holder_dir("moved", holder_ns + "net", netns::serialize_record(record))},
            {"is now in"});
  }

  // --- identities the kernel never reuses --------------------------------------
  // What a pid, its start tick and a namespace inode cannot tell apart: each
  // row keeps every reusable field of the record matching the live holder and
  // changes only the never-reused one, as a holder that died and a process
  // that took its pid in the same tick (in a namespace that got the freed
  // inode) would leave it. Each applies only where this kernel has the
  // identity; test/privileged/trust_identity_test.cpp reproduces the
  // impostor itself.
  if (live_record().holder_pidfs_ino) {
    netns::HolderRecord forged = live_record();
    numbers.emplace_back(std::to_string(*forged.holder_pidfs_ino), "<holder-pidfs-ino>");
    forged.holder_pidfs_ino = *forged.holder_pidfs_ino + 1;
    numbers.emplace_back(std::to_string(*forged.holder_pidfs_ino), "<dead-holder-pidfs-ino>");
    refused("record's pid and start tick taken by another process (pidfs inode differs)",
            {"run", "--netns", fake_holder_dir("pidfs", holder_ns + "net", netns::serialize_record(forged))},
            {"is not the process that wrote the record", "pidfs inode"});
  }
  if (live_record().netns_cookie &&
      netns::namespace_cookie_of_fd(netns::open_fd(holder_ns + "net", O_RDONLY).get())) {
    netns::HolderRecord forged = live_record();
    numbers.emplace_back(std::to_string(*forged.netns_cookie), "<holder-netns-cookie>");
    forged.netns_cookie = *forged.netns_cookie + 1000000;
    numbers.emplace_back(std::to_string(*forged.netns_cookie), "<dead-netns-cookie>");
    refused("namespace with the record's inode number but another cookie (inode reused)",
            {"run", "--netns", fake_holder_dir("cookie", holder_ns + "net", netns::serialize_record(forged))},
            {"another namespace that got the same inode number"});
  }
  {
    // The live holder's own record, beside a <ID>.lock that nobody holds.
    std::string link_path = fake_holder_dir("unlocked", holder_ns + "net", record_text);
    write_file(tmp / "unlocked/ceph-a.lock", std::to_string(holder->pid()) + "\n");
    refused("record's holder does not hold the <ID>.lock", {"run", "--netns", link_path},
            {"is held by nobody", "not by the record's holder"});
  }

  // --- sockets: who serves, what is sent ---------------------------------------
  {
    // A server that hands out the holder's own namespace with a well-formed
    // header, but runs as uid 65534: SO_PEERCRED names the uid that called
    // listen(), so only the listening thread changes its (per-thread) euid.
    make_dir(tmp / "userserver");
    std::string path = tmp / "userserver/ceph-a.net.sock";
    netns::UniqueFd listener = bind_socket(path, false);
    std::thread as_nobody([&] {
      if (::syscall(SYS_setresuid, -1, kNobody, -1) != 0) return;
      (void)::listen(listener.get(), 4);
      (void)::syscall(SYS_setresuid, -1, 0, -1);
    });
    as_nobody.join();
    netns::UniqueFd holder_fd = netns::open_fd(holder_ns + "net", O_RDONLY);
    netns::FdHeader header{netns::FdHeader::kVersion, kId, netns::ns_id_of_fd(holder_fd.get(), "holder")};
    std::thread server([&] {
      pollfd pfd{listener.get(), POLLIN, 0};
      if (::poll(&pfd, 1, 10000) != 1) return;
      netns::UniqueFd conn = netns::accept_fd(listener.get());
      try {
        netns::send_fd(conn.get(), header, holder_fd.get());
      } catch (const netns::Error&) {
      }
    });
    numbers.emplace_back(std::to_string(::getpid()), "<test-pid>");
    refused("socket served by a non-root uid", {"run", "--socket", path}, {"runs as uid 65534", "not root"});
    server.join();
  }
  {
    // Root called listen() (SO_PEERCRED says root) and handed the socket on:
    // an unprivileged process answers with a namespace of its choosing under
    // the holder's cluster ID. Here a thread of this process that drops to
    // uid 65534 (real and effective, which the credentials the kernel
    // attaches to a message carry) for the send.
    make_dir(tmp / "handed");
    std::string path = tmp / "handed/ceph-a.net.sock";
    netns::UniqueFd listener = bind_socket(path, true);
    netns::UniqueFd other_fd = netns::open_fd(other.ns_path(), O_RDONLY);
    netns::FdHeader header{netns::FdHeader::kVersion, kId, netns::ns_id_of_fd(other_fd.get(), "other")};
    std::thread server([&] {
      pollfd pfd{listener.get(), POLLIN, 0};
      if (::poll(&pfd, 1, 10000) != 1) return;
      netns::UniqueFd conn = netns::accept_fd(listener.get());
      if (::syscall(SYS_setresuid, kNobody, kNobody, 0) != 0) return;
      try {
        netns::send_fd(conn.get(), header, other_fd.get());
      } catch (const netns::Error&) {
      }
      (void)::syscall(SYS_setresuid, 0, 0, 0);
    });
    refused("socket listened on by root, answered by uid 65534",
            {"run", "--socket", path}, {"sent the namespace", "runs as uid 65534"});
    server.join();
  }
  {
    // The holder listens (SO_PEERCRED names it) and a forked process, root
    // as well, answers: the sender is compared with the record's holder,
    // not only with root. The "holder" is this test process, with a record
    // of its own; the answer is the real holder's namespace with a correct
    // header, so nothing but the sender is wrong.
    make_dir(tmp / "forked");
    std::string path = tmp / "forked/ceph-a.net.sock";
    netns::HolderRecord self = live_record();
    self.pid = ::getpid();
    self.pid_start_time = netns::pid_start_time(self.pid).value_or(0);
    netns::UniqueFd self_pidfd = netns::make_pidfd(self.pid);
    self.holder_pidfs_ino = netns::pidfs_inode(self_pidfd.get());
    numbers.emplace_back(std::to_string(self.pid_start_time), "<test-start-time>");
    if (self.holder_pidfs_ino) numbers.emplace_back(std::to_string(*self.holder_pidfs_ino), "<test-pidfs-ino>");
    write_file(tmp / "forked/ceph-a.holder.json", netns::serialize_record(self));
    netns::UniqueFd listener = bind_socket(path, true);
    netns::UniqueFd holder_fd = netns::open_fd(holder_ns + "net", O_RDONLY);
    netns::FdHeader header{netns::FdHeader::kVersion, kId, netns::ns_id_of_fd(holder_fd.get(), "holder")};
    pid_t answerer = ::fork();
    ASSERT_GE(answerer, 0);
    if (answerer == 0) {
      pollfd pfd{listener.get(), POLLIN, 0};
      if (::poll(&pfd, 1, 10000) == 1) {
        try {
          netns::UniqueFd conn = netns::accept_fd(listener.get());
          netns::send_fd(conn.get(), header, holder_fd.get());
        } catch (...) {
        }
      }
      ::_exit(0);
    }
    numbers.emplace_back(std::to_string(answerer), "<answerer-pid>");
    {
      netns::UniqueFd answerer_pidfd = netns::make_pidfd(answerer);
      if (auto ino = netns::pidfs_inode(answerer_pidfd.get()))
        numbers.emplace_back(std::to_string(*ino), "<answerer-pidfs-ino>");
    }
    refused("socket listened on by the record's holder, answered by another root process",
            {"run", "--socket", path}, {"sent the namespace"});
    ASSERT_EQ(::waitpid(answerer, nullptr, 0), answerer);
  }
  {
    // A root server whose header announces the holder's namespace but whose
    // descriptor is another one.
    numbers.emplace_back(std::to_string(other.ns_id().ino), "<other-netns-ino>");
    numbers.emplace_back(std::to_string(holder->ns_id().ino), "<holder-netns-ino>");
    make_dir(tmp / "liar");
    std::string path = tmp / "liar/ceph-a.net.sock";
    netns::UniqueFd listener = bind_socket(path, true);
    netns::UniqueFd other_fd = netns::open_fd(other.ns_path(), O_RDONLY);
    netns::FdHeader header{netns::FdHeader::kVersion, kId, holder->ns_id()};
    std::thread server([&] {
      pollfd pfd{listener.get(), POLLIN, 0};
      if (::poll(&pfd, 1, 10000) != 1) return;
      netns::UniqueFd conn = netns::accept_fd(listener.get());
      try {
        netns::send_fd(conn.get(), header, other_fd.get());
      } catch (const netns::Error&) {
      }
    });
    refused("socket header announces another namespace than the descriptor it sends",
            {"run", "--socket", path}, {"announced", "but sent"});
    server.join();
  }

  {
    // A real holder that serves only uid 1 (so its socket is 0666): uid 65534
    // connects, and the holder refuses it by SO_PEERCRED and closes.
    make_dir(tmp / "picky");
    Holder picky(tmp / "picky", kId, {"--socket", "--allow-uid", "1"});
    ASSERT_TRUE(picky.wait_ready()) << picky.err();
    numbers.emplace_back(std::to_string(picky.pid()), "<picky-holder-pid>");
    refused("a peer the holder refuses by uid (uid 65534, --allow-uid 1)",
            {"run", "--socket", tmp / "picky/ceph-a.net.sock"}, {"without sending anything", "--allow-uid"}, kNobody);
    EXPECT_NE(picky.err().find("refused a connection"), std::string::npos) << picky.err();
  }

  // --- user-named files that would block --------------------------------------
  ASSERT_EQ(::mkfifo((tmp / "fifo.json").c_str(), 0644), 0);
  refused("config is a FIFO", {"run", "--cluster-id", kId, "--config", tmp / "fifo.json"},
          {"is a FIFO, not a regular file"});
  refused("config is /dev/zero", {"run", "--cluster-id", kId, "--config", "/dev/zero"},
          {"is a character device, not a regular file"});

  // --- every entry point refuses the same way ----------------------------------
  {
    make_stubs();
    std::string planted = fake_holder_dir("planted", holder_ns + "net", record_text);
    ASSERT_EQ(::chmod((tmp / "planted").c_str(), 0777), 0);
    write_file(tmp / "keyfile", "AQBfake==\n", 0600);
    make_dir(tmp / "target");
    const std::vector<std::string> map_args = {"--pool", "p", "--image", "i", "--mon", "198.18.0.1:6789",
                                               "--id", "admin", "--keyfile", tmp / "keyfile"};
    // Control: through the live holder's link the stub rbd runs.
    std::vector<std::string> ok = {"map", "--netns", link};
    ok.insert(ok.end(), map_args.begin(), map_args.end());
    (void)exec_op(ok);
    ASSERT_TRUE(marker_exists()) << "the stub rbd did not run through the live holder";

    std::vector<std::string> map = {"map", "--netns", planted};
    map.insert(map.end(), map_args.begin(), map_args.end());
    refused_op("map through a world-writable holder directory (stub rbd)", map, {"writable by group or others"});
    refused_op("mount through a world-writable holder directory (stub mount)",
               {"mount", "--netns", planted, "--mon", "198.18.0.1:6789", "--id", "admin", "--keyfile",
                tmp / "keyfile", tmp / "target"},
               {"writable by group or others"});
    refused_op("umount through a world-writable holder directory (stub umount)",
               {"umount", "--netns", planted, tmp / "target"}, {"writable by group or others"});

    // The C ABI: the 125 is the result's own exit code.
    ::unlink(marker().c_str());
    netns_exec_request* req = netns_exec_request_new();
    const std::string script = "echo ran > " + marker();
    const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
    netns_exec_request_set_argv(req, argv);
    netns_exec_request_set_netns(req, planted.c_str());
    netns_exec_result* res = netns_exec_run(req);
    EXPECT_FALSE(marker_exists()) << "the command ran through the C ABI";
    EXPECT_EQ(netns_exec_result_outcome(res), NETNS_EXEC_OUTCOME_REFUSED);
    rows.push_back({"C ABI (netns_exec_run) through a world-writable holder directory",
                    netns_exec_result_exit_code(res), std::string("(C ABI error) ") + netns_exec_result_error(res)});
    EXPECT_NE(rows.back().message.find("writable by group or others"), std::string::npos) << rows.back().message;
    netns_exec_result_free(res);
    netns_exec_request_free(req);
  }

  // A holder whose storage interface has not arrived (a pod created while
  // Multus restarts): it holds the lock and publishes nothing, so the plugin
  // finds no namespace to run in rather than one without the storage network.
  {
    const std::string dir = tmp / "waiting";
    make_dir(dir);
    Holder waiting(dir, kId, {"--require-interface", "net1"});
    ASSERT_TRUE(netns::test::wait_until(
        [&] { return waiting.err().find("not publishing yet: net1 does not exist") != std::string::npos; }, 10s))
        << waiting.err();
    refused("holder waiting for its storage interface (--require-interface net1, net1 missing)",
            {"run", "--netns", dir + "/" + std::string(kId) + ".net.ns"}, {std::string(kId) + ".net.ns"});
    waiting.stop(SIGTERM);
  }

  // Holder that dies between resolve and exec: only the library can stop
  // there. Resolve, kill the holder, then run with the resolved namespace.
  {
    netns::exec::ResolvedNamespace ns =
        netns::exec::resolve(netns::exec::Source::netns_path(link), netns::exec::ResolveOptions{});
    ASSERT_TRUE(ns.record.has_value()) << "the holder's record vouched for the link";
    auto status = holder->stop(SIGKILL);
    ASSERT_TRUE(status.has_value());
    netns::spawn::Command cmd;
    cmd.argv = {"sh", "-c", "echo ran > " + marker()};
    ::unlink(marker().c_str());
    std::string message;
    try {
      auto r = netns::exec::run_in(ns, cmd);
      message = "ran: " + r.result.outcome.describe();
    } catch (const netns::Error& e) {
      message = e.describe();
    }
    EXPECT_FALSE(marker_exists()) << "the command ran after its holder died";
    EXPECT_NE(message.find("exited after the namespace was validated"), std::string::npos) << message;
    rows.push_back({"holder dies between resolve and exec (library: resolve, SIGKILL, run_in)", 125,
                    "(netns::Error) " + first_line(message)});
  }

  // The table.
  std::ostringstream doc;
  doc << "# Fault matrix\n\n"
         "Generated by `test/privileged/hardening_fault_matrix_test.cpp` against a live\n"
         "`netns-holder`; the test fails when this file is out of date. Regenerate with\n"
         "`NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix` (root). For every row the\n"
         "command (`sh -c 'echo ran > MARKER'`) never ran, and the message names the cause.\n"
         "`$TMP` is the test's temporary directory; pids and start times are shown as\n"
         "`<placeholders>` (the boot id as `<boot-id>`). The provenance rows plant\n"
         "files that match the live holder in every public field, so only who could\n"
         "have written them is wrong. The last row goes through the library (the CLI cannot be\n"
         "stopped between resolving and running); the CLI turns that netns::Error into\n"
         "exit status 125 like every other.\n\n"
         "| # | fault | exit status | message (first line) |\n"
         "|---|---|---|---|\n";
  const std::string boot = netns::read_boot_id();
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string message = rows[i].message;
    for (size_t at; (at = message.find(boot)) != std::string::npos;) message.replace(at, boot.size(), "<boot-id>");
    doc << "| " << i + 1 << " | " << rows[i].fault << " | " << rows[i].exit_status << " | `"
        << normalize(message, tmp.path(), numbers) << "` |\n";
  }
  const std::string generated = doc.str();
  const std::string committed_path = std::string(NETNS_SOURCE_DIR) + "/design/fault-matrix.md";
  const char* update = std::getenv("NETNS_UPDATE_FAULT_MATRIX");
  if (update != nullptr && std::string(update) == "1") {
    write_file(committed_path, generated);
    std::printf("rewrote %s (%zu rows)\n", committed_path.c_str(), rows.size());
    return;
  }
  std::string committed;
  try {
    committed = netns::read_file(committed_path);
  } catch (const netns::Error& e) {
    FAIL() << e.describe() << "\nGenerate it: NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix";
  }
  EXPECT_EQ(committed, generated)
      << committed_path << " is out of date; regenerate: NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix";
}

}  // namespace
