// The fault matrix (design/fault-matrix.md): every fault listed there against a
// live holder. For each: the command never ran (it would have left a marker
// file), the exit status is 125, and the message names the cause. The rows
// become a Markdown table, compared with the committed design/fault-matrix.md:
// the test fails when the document is out of date, and
//   NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix
// rewrites it. Temp paths and numbers (pids, inodes, start times) are
// normalized so the table is the same on every run and machine.
// Two more tables follow the refusals: cancelled map / unmap / mount / umount
// (stand-in programs ordered by FIFO events; what netns-exec exits with, its
// --json "cancel" word, what the node holds afterwards), and doctor's and
// fence-info's answers for mappings nobody serves, with their controls.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
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
using netns::test::ip_in;
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

// A cancelled Ceph operation: how netns-exec ended, the --json "cancel"
// word, what the node holds afterwards, and the message (stderr, first line).
struct CancelRow {
  std::string when;
  int exit_status = -1;
  std::string cancel;
  std::string left;
  std::string message;
};

// doctor or fence-info on a node: the exit status and the line that answers.
struct NodeRow {
  std::string what;
  int exit_status = -1;
  std::string line;
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
  for (const auto& [number, placeholder] : numbers)
    text = replace_number(text, number, placeholder);
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
      EXPECT_NE(r.err.find(cause), std::string::npos)
          << fault << ": message lacks " << cause << ":\n"
          << r.err;
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
    options.env =
        std::map<std::string, std::string>{{"PATH", stub_dir() + ":/usr/sbin:/usr/bin:/sbin:/bin"}};
    return netns::test::run_command(argv, options);
  }
  void refused_op(const std::string& fault, const std::vector<std::string>& args,
                  const std::vector<std::string>& causes) {
    record_refusal(fault, exec_op(args), causes);
  }
  // A run that must have been refused: 125, the marker absent, every cause
  // named; its first line becomes the row.
  void record_refusal(const std::string& fault, const RunResult& r,
                      const std::vector<std::string>& causes) {
    EXPECT_FALSE(marker_exists()) << fault << ": the command ran";
    EXPECT_EQ(r.exit_code, 125) << fault << ": " << r.describe();
    for (const auto& cause : causes)
      EXPECT_NE(r.err.find(cause), std::string::npos)
          << fault << ": message lacks " << cause << ":\n"
          << r.err;
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

  // --- cancellation: netns-exec map | unmap | mount | umount, real processes --
  //
  // Stand-in rbd, mount and umount on PATH report each step on a FIFO
  // (cancel_events) and then wait, either for their SIGTERM (hang) or for the
  // test to release them through a second FIFO (release): the cancel point is
  // ordered by these events, never by a sleep. The kernel state they change
  // is the test's files, which netns-exec sees in a mount namespace of its own
  // (made in its child before exec): a directory over /sys/bus (the krbd
  // sysfs), a file over /proc/filesystems (ceph is supported), one over its
  // own /proc/PID/mountinfo (what is mounted), and a tmpfs over /run (its
  // volume locks, private to the case).
  std::string cancel_dir() const { return tmp / "cancel"; }
  std::string cancel_bin() const { return cancel_dir() + "/bin"; }
  std::string cancel_device() const { return cancel_dir() + "/sys-bus/rbd/devices/0"; }
  std::string cancel_target() const { return cancel_dir() + "/mnt"; }
  std::string cancel_mountinfo() const { return cancel_dir() + "/mountinfo"; }

  void make_cancel_node() {
    make_dir(cancel_dir());
    make_dir(cancel_bin());
    make_dir(cancel_dir() + "/sys-bus");
    make_dir(cancel_dir() + "/sys-bus/rbd");
    make_dir(cancel_dir() + "/sys-bus/rbd/devices");
    make_dir(cancel_target());
    write_file(cancel_dir() + "/filesystems", "nodev\tceph\n");
    write_file(cancel_mountinfo(), "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n");
    write_file(cancel_dir() + "/keyfile", "AQBfake==\n", 0600);
    for (const char* fifo : {"/events", "/go"})
      ASSERT_EQ(::mkfifo((cancel_dir() + fifo).c_str(), 0600), 0) << fifo;
    // Both ends held here (O_RDWR): a stand-in's open never blocks, and the
    // events FIFO never reports a hang-up between two writers.
    cancel_events = netns::open_fd(cancel_dir() + "/events", O_RDWR | O_NONBLOCK);
    cancel_go = netns::open_fd(cancel_dir() + "/go", O_RDWR | O_NONBLOCK);
  }

  // Writes the stand-in `name` with `body`; the helpers: say WORD (an event),
  // hang (wait for SIGTERM, say "term", exit 143), release (wait for the
  // test), map_now / mount_now (the kernel step: sysfs / mountinfo as krbd and
  // the ceph client leave them), and $1 $2 as the program got them.
  void stand_in(const std::string& name, const std::string& body) {
    const std::string mi = cancel_mountinfo(), t = cancel_target();
    write_file(
        cancel_bin() + "/" + name,
        "#!/bin/sh\n"
        // A SIGTERM before hang is remembered, so the kernel step is
        // never cut in half and hang answers it at once.
        "got=\ntrap 'got=1' TERM\n"
        "say() { echo \"$*\" > " +
            cancel_dir() +
            "/events; }\n"
            "hang() { trap 'say term; exit 143' TERM; [ -z \"$got\" ] || { say term; exit 143; }; "
            "sleep 60 & wait $!; }\n"
            "release() { read -r _ < " +
            cancel_dir() +
            "/go; }\n"
            "D=/sys/bus/rbd/devices/0\n"
            "map_now() { mkdir -p $D; echo p > $D/pool; echo i > $D/name; echo - > $D/current_snap;"
            " : > $D/pool_ns; echo '198.18.0.1:6789 name=admin p i -' > $D/config_info; }\n"
            "mount_now() { echo '90 22 0:50 / " +
            t + " rw - ceph 198.18.0.1:6789:/ rw,name=admin' >> " + mi +
            "; }\n"
            // In place: the file is bind-mounted, a rename would leave the mount on the old one.
            "umount_now() { grep -v ' " +
            t + " ' " + mi + " > " + mi + ".new; cat " + mi + ".new > " + mi + "; }\n" + body +
            "\n",
        0755);
  }
  // rbd: `map_body` for map, `unmap_body` for unmap (rbd unmap DEVICE ...).
  void stand_in_rbd(const std::string& map_body, const std::string& unmap_body = "rm -rf $D") {
    stand_in("rbd", "case \" $* \" in\n*\" unmap \"*) say \"unmap $2\"; " + unmap_body +
                        " ;;\n*\" map \"*) say map-start; " + map_body + " ;;\nesac");
  }

  // The next event a stand-in said, within 20 s ("" when none came).
  std::string next_event() {
    for (;;) {
      size_t nl = events_seen.find('\n');
      if (nl != std::string::npos) {
        std::string line = events_seen.substr(0, nl);
        events_seen.erase(0, nl + 1);
        return line;
      }
      pollfd p{cancel_events.get(), POLLIN, 0};
      if (::poll(&p, 1, 20000) != 1) return "";
      char buf[256];
      ssize_t n = ::read(cancel_events.get(), buf, sizeof buf);
      if (n <= 0) return "";
      events_seen.append(buf, static_cast<size_t>(n));
    }
  }
  // Everything said until now, without waiting.
  std::string drain_events() {
    char buf[256];
    for (ssize_t n; (n = ::read(cancel_events.get(), buf, sizeof buf)) > 0;)
      events_seen.append(buf, static_cast<size_t>(n));
    std::string all = events_seen;
    events_seen.clear();
    return all;
  }

  // netns-exec ARGS --json in the stand-in node, in the background. With
  // `cancelled_before`, SIGTERM is blocked and pending when netns-exec starts:
  // a cancel that came before anything could run.
  std::unique_ptr<netns::test::Process> start_cancel_op(const std::vector<std::string>& args,
                                                        bool cancelled_before) {
    std::vector<std::string> argv = {
        "env", "PATH=" + cancel_bin() + ":/usr/sbin:/usr/bin:/sbin:/bin", NETNS_EXEC_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.emplace_back("--json");
    auto setup = [sys = cancel_dir() + "/sys-bus", fs = cancel_dir() + "/filesystems",
                  mi = cancel_mountinfo(), cancelled_before] {
      // In the forked child only (async-signal-safe calls; env and then
      // netns-exec keep this pid, so /proc/PID/mountinfo is theirs).
      char self[64] = "/proc/";
      auto end = std::to_chars(self + 6, self + sizeof self - 16, ::getpid()).ptr;
      std::memcpy(end, "/mountinfo", sizeof "/mountinfo");
      if (::unshare(CLONE_NEWNS) != 0 ||
          ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
          ::mount(sys.c_str(), "/sys/bus", nullptr, MS_BIND, nullptr) != 0 ||
          ::mount(fs.c_str(), "/proc/filesystems", nullptr, MS_BIND, nullptr) != 0 ||
          ::mount(mi.c_str(), self, nullptr, MS_BIND, nullptr) != 0 ||
          ::mount("fault-matrix-locks", "/run", "tmpfs", 0, nullptr) != 0)
        ::_exit(99);
      if (cancelled_before) {
        // Blocked and pending survive execve: netns-exec's signalfd finds it.
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        if (::sigprocmask(SIG_BLOCK, &term, nullptr) != 0 || ::kill(::getpid(), SIGTERM) != 0)
          ::_exit(99);
      }
    };
    return std::make_unique<netns::test::Process>(argv, setup);
  }

  // SIGTERM to netns-exec (the cancel), then wait until its engine has seen
  // it: the signal is pending on the signalfd the engine polls as soon as
  // kill() returns, and it woke the engine's thread; that thread asleep again
  // means the wake-up was handled. From then on, whatever the stand-in does
  // happens after the cancel, not in the same round as it.
  void cancel_and_wait_seen(netns::test::Process& op) {
    op.kill(SIGTERM);
    const std::string task = "/proc/" + std::to_string(op.pid()) + "/task";
    bool asleep = netns::test::wait_until(
        [&] {
          DIR* d = ::opendir(task.c_str());
          if (d == nullptr) return false;
          bool all = true;
          while (dirent* e = ::readdir(d)) {
            if (e->d_name[0] == '.') continue;
            // A thread's /proc/TID/stat is its own, as a process's is.
            std::optional<netns::ProcStat> stat = netns::read_stat(std::atoi(e->d_name));
            all = all && stat && stat->state == 'S';
          }
          ::closedir(d);
          return all;
        },
        20s);
    EXPECT_TRUE(asleep) << "netns-exec never waited again after the SIGTERM";
  }

  // What the node holds after a case, as the table says it.
  std::string cancel_leftover() const {
    std::vector<std::string> left;
    if (holder_test::exists(cancel_device())) left.push_back("/dev/rbd0 mapped");
    if (netns::read_file(cancel_mountinfo()).find(" " + cancel_target() + " ") != std::string::npos)
      left.push_back("$TMP/cancel/mnt mounted");
    if (left.empty()) return "nothing";
    return left.size() == 1 ? left[0] : left[0] + ", " + left[1];
  }

  // One cancellation row: netns-exec has run to its end; its exit status,
  // the --json "cancel" word and what is left must be the expected ones, and
  // the stand-ins must have said `said` (every event, in order).
  void cancel_row(const std::string& when, netns::test::Process& op, int exit_status,
                  const std::string& cancel, const std::string& left, const std::string& said) {
    std::optional<int> status = op.wait(30s);
    ASSERT_TRUE(status.has_value()) << when << ": netns-exec did not end";
    ASSERT_TRUE(WIFEXITED(*status)) << when << ": wait status " << *status << "\n" << op.err();
    ASSERT_NE(WEXITSTATUS(*status), 99)
        << when << ": the case's mount namespace could not be set up";
    std::string word;
    try {
      word = nlohmann::json::parse(op.out()).at("cancel").get<std::string>();
    } catch (const std::exception& e) {
      ADD_FAILURE() << when << ": no --json outcome: " << e.what() << "\n" << op.out() << op.err();
    }
    std::string now_left = cancel_leftover();
    EXPECT_EQ(WEXITSTATUS(*status), exit_status) << when << "\n" << op.out() << op.err();
    EXPECT_EQ(word, cancel) << when << "\n" << op.out();
    EXPECT_EQ(now_left, left) << when;
    EXPECT_EQ(drain_events(), said) << when;
    std::string message = first_line(op.err());
    if (message.empty()) message = "(none: it succeeded)";
    cancel_rows.push_back({when, WEXITSTATUS(*status), word, now_left, message});
  }

  TempDir tmp;
  const std::string holder_dir = tmp / "holder";
  const std::string marker_dir = tmp / "marker";
  std::unique_ptr<Holder> holder;
  std::string record_text;
  std::vector<Row> rows;
  std::vector<CancelRow> cancel_rows;
  std::vector<NodeRow> node_rows;
  Placeholders numbers;
  netns::UniqueFd cancel_events, cancel_go;
  std::string events_seen;
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
  refused("dangling link",
          {"run", "--netns", fake_holder_dir("dangling", tmp / "nowhere/net", std::nullopt)},
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
            {"run", "--netns",
             fake_holder_dir("reused", unrelated.ns_path(), netns::serialize_record(reused))},
            {"reused by another process", "start time"});
  }
  refused("link to the caller's own namespace",
          {"run", "--netns",
           fake_holder_dir("own", "/proc/" + std::to_string(::getpid()) + "/ns/net", std::nullopt)},
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
            {"run", "--netns",
             fake_holder_dir("pidns", holder_ns + "net", netns::serialize_record(foreign))},
            {"pid namespace", "hostPID"});
  }
  refused("mount-namespace file", {"run", "--netns", holder_ns + "mnt"},
          {"not a network namespace", "mnt"});
  refused("pid-namespace file", {"run", "--netns", holder_ns + "pid"},
          {"not a network namespace", "pid"});
  write_file(tmp / "regular", "not a namespace\n");
  refused("regular file", {"run", "--netns", tmp / "regular"}, {"not a namespace file"});
  make_dir(tmp / "adir");
  refused("directory", {"run", "--netns", tmp / "adir"}, {"not a namespace file"});
  make_dir(tmp / "loop");
  make_link("b.net.ns", tmp / "loop/a.net.ns");
  make_link("a.net.ns", tmp / "loop/b.net.ns");
  refused("symlink loop", {"run", "--netns", tmp / "loop/a.net.ns"}, {"ELOOP"});
  refused("unreadable file (the holder's link, as uid 65534)", {"run", "--netns", link}, {"EACCES"},
          kNobody);
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
            {"run", "--netns",
             fake_holder_dir("other", holder_ns + "net", netns::serialize_record(other))},
            {"for cluster \"ceph-b\", not \"ceph-a\""});
  }

  const std::string config = tmp / "config.json";
  write_file(config,
             "[{\"clusterID\": \"ceph-a\", \"monitors\": [\"198.18.0.1:6789\"], "
             "\"rbd\": {\"netNamespaceFilePath\": \"" +
                 link + "\"}}]\n");
  {
    // Control: the config path works.
    RunResult r = exec({"run", "--cluster-id", kId, "--config", config});
    ASSERT_TRUE(r.ok()) << r.describe();
    ASSERT_TRUE(marker_exists());
  }
  refused("cluster ID with traversal", {"run", "--cluster-id", "../../etc/x", "--config", config},
          {"invalid cluster ID", "not allowed"});
  refused("config missing", {"run", "--cluster-id", kId, "--config", tmp / "absent.json"},
          {"ENOENT", "absent.json"});
  write_file(tmp / "malformed.json", "[{\"clusterID\": \"ceph-a\",\n");
  write_file(tmp / "foreign.json", netns::read_file(config));
  ASSERT_EQ(::chown((tmp / "foreign.json").c_str(), kNobody, kNobody), 0);
  refused("config owned by an unprivileged user",
          {"run", "--cluster-id", kId, "--config", tmp / "foreign.json"},
          {"is owned by uid 65534", "foreign.json"});
  write_file(tmp / "writable.json", netns::read_file(config), 0666);
  ASSERT_EQ(::chmod((tmp / "writable.json").c_str(), 0666), 0);
  refused("config writable by others",
          {"run", "--cluster-id", kId, "--config", tmp / "writable.json"},
          {"is writable by group or others", "writable.json"});
  refused("config malformed", {"run", "--cluster-id", kId, "--config", tmp / "malformed.json"},
          {"parse", "malformed.json"});
  // ceph-csi's encoding/json fails the whole file on a wrong type anywhere,
  // so ceph-csi uses no cluster of it: neither does netns-exec, though this
  // entry (keys spelled as Go folds them) names the live holder.
  write_file(tmp / "mistyped.json",
             "[{\"ClusterID\": \"ceph-a\", \"RBD\": {\"NetNamespaceFilePath\": \"" + link +
                 "\"}}, {\"clusterID\": \"ceph-b\", \"monitors\": \"198.18.0.1\"}]\n");
  refused("config with a wrong type in another cluster's entry",
          {"run", "--cluster-id", kId, "--config", tmp / "mistyped.json"},
          {"entry 2, field \"monitors\" is a string", "ceph-csi uses no cluster of it"});
  refused("cluster absent from the config", {"run", "--cluster-id", "ceph-z", "--config", config},
          {"cluster \"ceph-z\" is not in"});

  {
    std::string path = tmp / "deaf.net.sock";
    { netns::UniqueFd gone = bind_socket(path, false); }  // the file stays, nobody listens
    refused("socket path with no listener", {"run", "--socket", path},
            {"ECONNREFUSED", "no holder is listening"});
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
    refused("socket that accepts and sends garbage", {"run", "--socket", path},
            {"bad header", "garbage.net.sock"});
    server.join();
  }

  // --- provenance: who wrote the files (root, or a --trust-uid) -------------
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
            {"run", "--netns", tmp / "via-symlink/ceph-a.net.ns"},
            {"owned by uid 65534", "--trust-uid"});
  }
  {
    std::string path = fake_holder_dir("foreign-link", holder_ns + "net", record_text);
    ASSERT_EQ(::lchown(path.c_str(), kNobody, kNobody), 0);
    refused("link owned by another uid", {"run", "--netns", path}, {"link", "owned by uid 65534"});
  }
  {
    std::string path = fake_holder_dir("foreign-record", holder_ns + "net", record_text);
    ASSERT_EQ(::chown((tmp / "foreign-record/ceph-a.holder.json").c_str(), kNobody, kNobody), 0);
    refused("record owned by another uid", {"run", "--netns", path},
            {"holder record", "owned by uid 65534"});
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
            {"run", "--netns", holder_dir + "/rook-a.net"},
            {"is a holder directory", "without a cluster ID"});
    const std::string for_b = tmp / "config-b.json";
    write_file(for_b, "[{\"clusterID\": \"ceph-b\", \"rbd\": {\"netNamespaceFilePath\": \"" +
                          holder_dir + "/rook-a.net\"}}]\n");
    refused("a file named otherwise in a holder directory, for a cluster with no record there",
            {"run", "--cluster-id", "ceph-b", "--config", for_b},
            {"ceph-b.holder.json", "is a holder directory"});
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
    ASSERT_TRUE(netns::test::run_command({"ip", "netns", "add", name}).ok())
        << "ip netns add " << name;
    struct Delete {
      std::string name;
      ~Delete() { (void)netns::test::run_command({"ip", "netns", "delete", name}); }
    } remove_named{name};
    for (const std::string& file : {plain.ns_path(), "/run/netns/" + name}) {
      refused(file.substr(0, 6) == "/proc/"
                  ? "/proc/PID/ns/net of a process that is no holder (no opt-in)"
                  : "/run/netns/NAME from `ip netns add` (no opt-in)",
              {"run", "--netns", file},
              {"no holder record vouches for", "--allow-unrecorded-netns"});
      RunResult r = exec({"run", "--allow-unrecorded-netns", "--netns", file});
      EXPECT_TRUE(r.ok() && marker_exists())
          << "control: " << file << " with the opt-in: " << r.describe();
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
        [&] {
          return netns::test::ns_id_of_path(user_ns) !=
                 netns::test::ns_id_of_path("/proc/self/ns/user");
        },
        5s));
    numbers.emplace_back(std::to_string(netns::test::ns_id_of_path(user_ns).ino),
                         "<other-userns-ino>");
    refused("namespace owned by a non-initial user namespace (unshare -Urn)",
            {"run", "--netns",
             fake_holder_dir("userns", "/proc/" + std::to_string(userns.pid()) + "/ns/net",
                             std::nullopt)},
            {"not by the initial user namespace", "unshare -Urn"});
  }
  // The host's namespace, to a caller that is elsewhere (netns-exec runs in a
  // fresh network namespace here). Known on a kernel that gives init_net its
  // fixed inode (6.18 and later), or with hostPID through /proc/1/ns/net.
  refused(
      "the host's network namespace, from a caller in another namespace",
      {"run", "--netns",
       fake_holder_dir("host", "/proc/" + std::to_string(::getpid()) + "/ns/net", std::nullopt)},
      {"host's network namespace"}, std::nullopt, {"unshare", "--net", "--"});

  // --- the record against the live holder -----------------------------------
  {
    netns::HolderRecord rebooted = live_record();
    rebooted.boot_id = "00000000-0000-0000-0000-000000000000";
    refused("record from before the last reboot (boot id mismatch)",
            {"run", "--netns",
             fake_holder_dir("boot", holder_ns + "net", netns::serialize_record(rebooted))},
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
            {"run", "--netns",
             fake_holder_dir("gone", holder_ns + "net", netns::serialize_record(dead))},
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
            {"run", "--netns",
             fake_holder_dir("moved", holder_ns + "net", netns::serialize_record(record))},
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
            {"run", "--netns",
             fake_holder_dir("pidfs", holder_ns + "net", netns::serialize_record(forged))},
            {"is not the process that wrote the record", "pidfs inode"});
  }
  if (live_record().netns_cookie &&
      netns::namespace_cookie_of_fd(netns::open_fd(holder_ns + "net", O_RDONLY).get())) {
    netns::HolderRecord forged = live_record();
    numbers.emplace_back(std::to_string(*forged.netns_cookie), "<holder-netns-cookie>");
    forged.netns_cookie = *forged.netns_cookie + 1000000;
    numbers.emplace_back(std::to_string(*forged.netns_cookie), "<dead-netns-cookie>");
    refused("namespace with the record's inode number but another cookie (inode reused)",
            {"run", "--netns",
             fake_holder_dir("cookie", holder_ns + "net", netns::serialize_record(forged))},
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
    netns::FdHeader header{netns::FdHeader::kVersion, kId,
                           netns::ns_id_of_fd(holder_fd.get(), "holder")};
    std::thread server([&] {
      pollfd pfd{listener.get(), POLLIN, 0};
      if (::poll(&pfd, 1, 10000) != 1) return;
      netns::UniqueFd conn = netns::accept_fd(listener.get());
      try {
        netns::send_fd(conn.get(), header, holder_fd.get());
      } catch (const netns::Error&) {}
    });
    numbers.emplace_back(std::to_string(::getpid()), "<test-pid>");
    refused("socket served by a non-root uid", {"run", "--socket", path},
            {"runs as uid 65534", "not root"});
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
    netns::FdHeader header{netns::FdHeader::kVersion, kId,
                           netns::ns_id_of_fd(other_fd.get(), "other")};
    std::thread server([&] {
      pollfd pfd{listener.get(), POLLIN, 0};
      if (::poll(&pfd, 1, 10000) != 1) return;
      netns::UniqueFd conn = netns::accept_fd(listener.get());
      if (::syscall(SYS_setresuid, kNobody, kNobody, 0) != 0) return;
      try {
        netns::send_fd(conn.get(), header, other_fd.get());
      } catch (const netns::Error&) {}
      (void)::syscall(SYS_setresuid, 0, 0, 0);
    });
    refused("socket listened on by root, answered by uid 65534", {"run", "--socket", path},
            {"sent the namespace", "runs as uid 65534"});
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
    if (self.holder_pidfs_ino)
      numbers.emplace_back(std::to_string(*self.holder_pidfs_ino), "<test-pidfs-ino>");
    write_file(tmp / "forked/ceph-a.holder.json", netns::serialize_record(self));
    netns::UniqueFd listener = bind_socket(path, true);
    netns::UniqueFd holder_fd = netns::open_fd(holder_ns + "net", O_RDONLY);
    netns::FdHeader header{netns::FdHeader::kVersion, kId,
                           netns::ns_id_of_fd(holder_fd.get(), "holder")};
    pid_t answerer = ::fork();
    ASSERT_GE(answerer, 0);
    if (answerer == 0) {
      pollfd pfd{listener.get(), POLLIN, 0};
      if (::poll(&pfd, 1, 10000) == 1) {
        try {
          netns::UniqueFd conn = netns::accept_fd(listener.get());
          netns::send_fd(conn.get(), header, holder_fd.get());
        } catch (...) {}
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
      } catch (const netns::Error&) {}
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
            {"run", "--socket", tmp / "picky/ceph-a.net.sock"},
            {"without sending anything", "--allow-uid"}, kNobody);
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
    const std::vector<std::string> map_args = {
        "--pool",          "p",    "--image", "i",         "--mon",
        "198.18.0.1:6789", "--id", "admin",   "--keyfile", tmp / "keyfile"};
    // Control: through the live holder's link the stub rbd runs.
    std::vector<std::string> ok = {"map", "--netns", link};
    ok.insert(ok.end(), map_args.begin(), map_args.end());
    (void)exec_op(ok);
    ASSERT_TRUE(marker_exists()) << "the stub rbd did not run through the live holder";

    std::vector<std::string> map = {"map", "--netns", planted};
    map.insert(map.end(), map_args.begin(), map_args.end());
    refused_op("map through a world-writable holder directory (stub rbd)", map,
               {"writable by group or others"});
    refused_op("mount through a world-writable holder directory (stub mount)",
               {"mount", "--netns", planted, "--mon", "198.18.0.1:6789", "--id", "admin",
                "--keyfile", tmp / "keyfile", tmp / "target"},
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
                    netns_exec_result_exit_code(res),
                    std::string("(C ABI error) ") + netns_exec_result_error(res)});
    EXPECT_NE(rows.back().message.find("writable by group or others"), std::string::npos)
        << rows.back().message;
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
        [&] {
          return waiting.err().find("not publishing yet: net1 does not exist") != std::string::npos;
        },
        10s))
        << waiting.err();
    refused("holder waiting for its storage interface (--require-interface net1, net1 missing)",
            {"run", "--netns", dir + "/" + std::string(kId) + ".net.ns"},
            {std::string(kId) + ".net.ns"});
    waiting.stop(SIGTERM);
  }
  // The same with a monitor the holder cannot reach (its namespace has no
  // route at all: the connect fails at once, nothing leaves it).
  {
    const std::string dir = tmp / "unreachable";
    make_dir(dir);
    Holder waiting(dir, kId, {"--require-reachable", "198.18.20.1:3300"});
    ASSERT_TRUE(netns::test::wait_until(
        [&] {
          return waiting.err().find("not publishing yet: no monitor reachable: ") !=
                 std::string::npos;
        },
        10s))
        << waiting.err();
    refused("holder whose monitor is unreachable (--require-reachable 198.18.20.1:3300)",
            {"run", "--netns", dir + "/" + std::string(kId) + ".net.ns"},
            {std::string(kId) + ".net.ns"});
    waiting.stop(SIGTERM);
  }

  // --- transparent mode fails closed ---------------------------------------
  // netns-exec installed as rbd and nvme, the real programs stubs that would
  // leave the marker: a session-opening call the shim cannot match to one
  // held cluster is refused, never run in the caller's namespace.
  {
    const std::string bin = tmp / "shims";
    make_dir(bin);
    for (const char* tool : {"rbd", "nvme"})
      ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (bin + "/" + tool).c_str()), 0);
    const std::string real = tmp / "real";
    make_dir(real);
    for (const char* tool : {"rbd", "nvme"})
      write_file(real + "/" + tool, "#!/bin/sh\necho ran > " + marker() + "\n", 0755);
    const std::string shim_config = tmp / "shim-config.json";
    write_file(shim_config, R"([{"clusterID": "ceph-a", "monitors": ["198.18.0.1:6789"]},
                            {"clusterID": "ceph-b", "monitors": ["198.18.0.10:6789"]}])");
    auto shim = [&](const std::string& fault, const std::string& tool,
                    const std::vector<std::string>& args, std::map<std::string, std::string> env,
                    const std::vector<std::string>& causes) {
      ::unlink(marker().c_str());
      std::vector<std::string> argv = {bin + "/" + tool};
      argv.insert(argv.end(), args.begin(), args.end());
      netns::test::RunOptions options = holder_test::within(20s);
      env.emplace("PATH", bin + ":" + real + ":/usr/sbin:/usr/bin:/sbin:/bin");
      env.emplace("NETNS_EXEC_CONFIG", shim_config);
      env.emplace("NETNS_EXEC_HOLDER_DIR", tmp / "shim-holders");
      env.emplace("CEPH_CONF", tmp / "no-ceph.conf");
      options.env = env;
      record_refusal(fault, netns::test::run_command(argv, options), causes);
    };
    shim("shim: held list names an ID config.json lacks (Ceph-A for ceph-a)", "rbd",
         {"-m", "198.18.0.1:6789", "map", "rbd/img"}, {{"NETNS_EXEC_HELD_CLUSTERS", "Ceph-A"}},
         {"\"Ceph-A\"", "did you mean \"ceph-a\"", shim_config});
    shim("shim: rbd map naming no monitors, no Ceph config file to name them", "rbd",
         {"map", "rbd/img"}, {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}},
         {"cannot be told", "no-ceph.conf", "NETNS_EXEC_UNMATCHED=own-netns"});
    shim("shim: rbd map to monitors no cluster of config.json has", "rbd",
         {"-m", "198.18.0.9:6789", "map", "rbd/img"}, {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}},
         {"\"198.18.0.9:6789\"", shim_config});
    shim("shim: rbd map to the monitors of two clusters", "rbd",
         {"-m", "198.18.0.1:6789,198.18.0.10:6789", "map", "rbd/img"},
         {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}}, {"ambiguous", "\"ceph-a\"", "\"ceph-b\""});
    shim("shim: rbd map, a monitor with leading zeros that glibc and the kernel read apart", "rbd",
         {"-m", "198.18.0.010:6789", "map", "rbd/img"}, {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}},
         {"198.18.0.8 (glibc)", "198.18.0.10 (the kernel)"});
    shim("shim: rbd map with an unknown NETNS_EXEC_UNMATCHED", "rbd",
         {"-m", "198.18.0.9:6789", "map", "rbd/img"},
         {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}, {"NETNS_EXEC_UNMATCHED", "yes"}},
         {"NETNS_EXEC_UNMATCHED=\"yes\""});
    shim("shim: nvme connect to a target no holder declares", "nvme",
         {"connect", "-t", "tcp", "-a", "198.18.5.1", "-s", "4420", "-n", "nqn.x"},
         {{"NETNS_EXEC_TARGETS", "gw-a=198.18.4.0/24"}}, {"\"198.18.5.1\"", "NETNS_EXEC_TARGETS"});
    shim("shim: nvme connect to a target two holders declare alike", "nvme",
         {"connect", "-t", "tcp", "-a", "198.18.4.1", "-s", "4420", "-n", "nqn.x"},
         {{"NETNS_EXEC_TARGETS", "gw-a=198.18.4.0/24;gw-b=198.18.4.0/24"}},
         {"ambiguous", "\"gw-a\"", "\"gw-b\""});
    shim("shim: nvme connect-all naming no address (targets from discovery.conf)", "nvme",
         {"connect-all"}, {{"NETNS_EXEC_TARGETS", "gw-a=198.18.4.0/24"}}, {"discovery.conf"});
    // The CLI's --cluster-id takes the same decision.
    refused("run --cluster-id with a held list naming an ID config.json lacks",
            {"run", "--cluster-id", "ceph-a", "--config", shim_config}, {"did you mean \"ceph-a\""},
            std::nullopt,
            {"env", "NETNS_EXEC_HELD_CLUSTERS=Ceph-A",
             "NETNS_EXEC_HOLDER_DIR=" + (tmp / "shim-holders")});
  }

  // --- cancellation of map, unmap, mount and umount (the Ceph operations) ----
  // Each row is one netns-exec run against the live holder, cancelled at one
  // point: SIGTERM (how a caller stops the CLI it started) or --timeout.
  // "left" is read from the node afterwards.
  {
    ASSERT_NO_FATAL_FAILURE(make_cancel_node());
    const std::string keyfile = cancel_dir() + "/keyfile";
    auto map = [&](const std::string& grace, std::vector<std::string> extra = {}) {
      std::vector<std::string> a = {"map",     "--netns",   link,    "--pool",          "p",
                                    "--image", "i",         "--mon", "198.18.0.1:6789", "--id",
                                    "admin",   "--keyfile", keyfile, "--cancel-grace",  grace};
      a.insert(a.end(), extra.begin(), extra.end());
      return a;
    };
    auto mount = [&](const std::string& grace, std::vector<std::string> extra = {}) {
      std::vector<std::string> a = {
          "mount", "--netns",   link,    "--mon",         "198.18.0.1:6789", "--id",
          "admin", "--keyfile", keyfile, cancel_target(), "--cancel-grace",  grace};
      a.insert(a.end(), extra.begin(), extra.end());
      return a;
    };
    const std::vector<std::string> unmap = {"unmap",     "--netns",        link,
                                            "/dev/rbd0", "--cancel-grace", "20s"};
    const std::vector<std::string> umount = {"umount",        "--netns",        link,
                                             cancel_target(), "--cancel-grace", "20s"};
    const std::string umount_said = "umount " + cancel_target() + "\n";
    stand_in("umount", "say \"umount $1\"; umount_now");

    stand_in_rbd("map_now; echo /dev/rbd0");
    {
      auto op = start_cancel_op(map("20s"), true);
      cancel_row("map, cancelled before it starts (SIGTERM already pending)", *op, 125,
                 "not_started", "nothing", "");
    }
    stand_in_rbd("hang");
    {
      auto op = start_cancel_op(map("200ms"), false);
      ASSERT_EQ(next_event(), "map-start");
      op->kill(SIGTERM);
      cancel_row(
          "map, SIGTERM while rbd runs, before its kernel step; rbd ends on its SIGTERM after the "
          "grace",
          *op, 137, "nothing_left", "nothing", "term\n");
    }
    stand_in_rbd("map_now; say mapped; release; echo /dev/rbd0");
    {
      auto op = start_cancel_op(map("20s"), false);
      ASSERT_EQ(next_event(), "map-start");
      ASSERT_EQ(next_event(), "mapped");
      cancel_and_wait_seen(*op);
      ASSERT_EQ(::write(cancel_go.get(), "go\n", 3), 3);
      cancel_row(
          "map, SIGTERM after its kernel step; rbd finishes within the grace (prints /dev/rbd0)",
          *op, 137, "undone", "nothing", "unmap /dev/rbd0\n");
    }
    stand_in_rbd("map_now; say mapped; hang");
    {
      auto op = start_cancel_op(map("200ms"), false);
      ASSERT_EQ(next_event(), "map-start");
      ASSERT_EQ(next_event(), "mapped");
      op->kill(SIGTERM);
      cancel_row("map, SIGTERM after its kernel step; rbd hangs until its SIGTERM after the grace",
                 *op, 137, "undone", "nothing", "term\nunmap /dev/rbd0\n");
    }
    {
      // The same rbd, stopped by the timeout instead of a signal.
      auto op = start_cancel_op(map("1s", {"--timeout", "1s"}), false);
      cancel_row(
          "map, --timeout after its kernel step; rbd hangs until its SIGTERM after the grace", *op,
          124, "undone", "nothing", "map-start\nmapped\nterm\nunmap /dev/rbd0\n");
    }

    // The device a map made, for the unmap rows.
    make_dir(cancel_device());
    for (const auto& [file, text] : std::map<std::string, std::string>{
             {"pool", "p\n"}, {"name", "i\n"}, {"current_snap", "-\n"}, {"pool_ns", ""}})
      write_file(cancel_device() + "/" + file, text);
    stand_in_rbd("exit 1", "release; rm -rf $D");
    {
      auto op = start_cancel_op(unmap, true);
      cancel_row("unmap, cancelled before it starts (SIGTERM already pending)", *op, 125,
                 "not_started", "/dev/rbd0 mapped", "");
    }
    {
      auto op = start_cancel_op(unmap, false);
      ASSERT_EQ(next_event(), "unmap /dev/rbd0");
      cancel_and_wait_seen(*op);
      ASSERT_EQ(::write(cancel_go.get(), "go\n", 3), 3);
      cancel_row("unmap, SIGTERM while rbd unmap runs; it finishes within the grace", *op, 0,
                 "completed", "nothing", "");
    }

    stand_in("mount", "say mount-start; mount_now");
    {
      auto op = start_cancel_op(mount("20s"), true);
      cancel_row("mount, cancelled before it starts (SIGTERM already pending)", *op, 125,
                 "not_started", "nothing", "");
    }
    stand_in("mount", "say mount-start; mount_now; say mounted; hang");
    {
      auto op = start_cancel_op(mount("200ms"), false);
      ASSERT_EQ(next_event(), "mount-start");
      ASSERT_EQ(next_event(), "mounted");
      op->kill(SIGTERM);
      cancel_row(
          "mount, SIGTERM after its kernel step; mount hangs until its SIGTERM after the grace",
          *op, 137, "undone", "nothing", "term\n" + umount_said);
    }
    stand_in("mount", "say mount-start; hang");
    {
      auto op = start_cancel_op(mount("1s", {"--timeout", "1s"}), false);
      cancel_row(
          "mount, --timeout before its kernel step; mount ends on its SIGTERM after the grace", *op,
          124, "nothing_left", "nothing", "mount-start\nterm\n");
    }

    stand_in("mount", "mount_now");
    {
      // The mount for the umount row, through netns-exec like the others.
      auto op = start_cancel_op(mount("20s"), false);
      std::optional<int> status = op->wait(30s);
      ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
          << op->out() << op->err();
    }
    stand_in("umount", "say \"umount $1\"; release; umount_now");
    {
      auto op = start_cancel_op(umount, false);
      ASSERT_EQ(next_event(), "umount " + cancel_target());
      cancel_and_wait_seen(*op);
      ASSERT_EQ(::write(cancel_go.get(), "go\n", 3), 3);
      cancel_row("umount, SIGTERM while umount runs; it finishes within the grace", *op, 0,
                 "completed", "nothing", "");
    }
  }

  // --- the node's mappings and its fence ------------------------------------
  // A holder whose namespace has a storage address (198.18.31.50 on net1), a
  // namespace standing in for the node's own (198.18.32.1), and a stand-in
  // krbd sysfs / ceph debugfs / mountinfo tree per row (this machine's kernel
  // has neither client; the kernel suite's kernel.orphan is the real one).
  {
    netns::test::NetnsChild node_ns;
    ip_in(node_ns.ns_path(), {"link", "add", "eth9", "type", "veth", "peer", "name", "eth9p"});
    ip_in(node_ns.ns_path(), {"addr", "add", "198.18.32.1/24", "dev", "eth9"});
    const std::string dir = tmp / "served";
    make_dir(dir);
    // As the chart starts it: it publishes once net1 is up with its address.
    auto served =
        std::make_unique<Holder>(dir, kId, std::vector<std::string>{"--require-interface", "net1"});
    numbers.emplace_back(std::to_string(served->pid()), "<served-holder-pid>");
    // Its first word comes from inside its own namespace: only then does its
    // ns_path name that namespace and not ours.
    ASSERT_TRUE(netns::test::wait_until(
        [&] {
          return served->err().find("not publishing yet: net1 does not exist") != std::string::npos;
        },
        10s))
        << served->err();
    ip_in(served->ns_path(), {"link", "add", "net1", "type", "veth", "peer", "name", "net1p"});
    ip_in(served->ns_path(), {"addr", "add", "198.18.31.50/24", "dev", "net1"});
    ip_in(served->ns_path(), {"link", "set", "net1p", "up"});
    ip_in(served->ns_path(), {"link", "set", "net1", "up"});
    ASSERT_TRUE(served->wait_ready()) << served->err();
    numbers.emplace_back(std::to_string(served->ns_id().ino), "<served-netns-ino>");
    const std::string record = dir + "/" + kId + ".holder.json";
    ASSERT_TRUE(netns::test::wait_until(
        [&] {
          const netns::HolderRecord r = netns::parse_record(netns::read_file(record), record);
          return r.client_addresses.has_value() && !r.client_addresses->empty();
        },
        10s))
        << served->err();
    // The namespace doctor checks (--netns): a healthy holder's, in a
    // directory doctor does not take holders from, so that its checks pass
    // and the exit status is the mappings' alone, the served holder gone too.
    make_dir(tmp / "probe");
    Holder probe(tmp / "probe", kId);
    ASSERT_TRUE(probe.wait_ready()) << probe.err();
    numbers.emplace_back(std::to_string(probe.pid()), "<probe-holder-pid>");
    ip_in(probe.ns_path(), {"link", "set", "lo", "up"});
    ip_in(probe.ns_path(), {"link", "add", "net2", "type", "veth", "peer", "name", "net2p"});
    ip_in(probe.ns_path(), {"addr", "add", "198.18.33.50/24", "dev", "net2"});
    ip_in(probe.ns_path(), {"link", "set", "net2p", "up"});
    ip_in(probe.ns_path(), {"link", "set", "net2", "up"});
    const std::string probe_link = tmp / "probe/ceph-a.net.ns";

    // A tree with one rbd device (client `addr`) or one ceph mount.
    auto tree = [&](const std::string& name, const std::string& image, const std::string& addr,
                    bool cephfs) {
      std::string root = tmp / ("kernel-" + name);
      make_dir(root);
      make_dir(root + "/rbd");
      make_dir(root + "/rbd/devices");
      make_dir(root + "/ceph");
      write_file(root + "/mountinfo", "");
      if (cephfs) {
        const std::string fs = root + "/ceph/4f1c3a7e-5b2d-4a8e-9c61-0d2e7f3b9a10.client4300";
        make_dir(fs);
        write_file(fs + "/status", "instance: client.4300 " + addr + "\nblocklisted: false\n");
        write_file(fs + "/monmap", "epoch 1\n\tmon0\t198.18.31.1:6789\n");
        write_file(root + "/mountinfo",
                   "100 50 0:77 /volumes/csi /mnt/pv1 rw,relatime shared:1 - ceph "
                   "198.18.31.1:6789:/volumes/csi rw,name=admin,secret=<hidden>,acl\n");
      } else {
        const std::string d = root + "/rbd/devices/0";
        make_dir(d);
        for (const auto& [file, text] :
             std::map<std::string, std::string>{{"pool", "rbd\n"},
                                                {"pool_ns", "\n"},
                                                {"name", image + "\n"},
                                                {"current_snap", "-\n"},
                                                {"client_id", "client4100\n"},
                                                {"client_addr", addr + "\n"}})
          write_file(d + "/" + file, text);
      }
      return root;
    };
    // netns-exec doctor on `root`: the exit status, and its line for the
    // mapping (`object`), which must say `verdict`.
    auto doctor = [&](const std::string& what, const std::string& root, const std::string& object,
                      int exit_status, const std::string& verdict) {
      auto r = netns::test::run_command(
          {NETNS_EXEC_BIN, "doctor", "--netns", probe_link, "--holder-dir", dir, "--node-netns",
           node_ns.ns_path(), "--sys-bus-rbd", root + "/rbd", "--ceph-debugfs", root + "/ceph",
           "--mountinfo", root + "/mountinfo"},
          holder_test::within(30s));
      std::string line;
      std::istringstream lines(r.out);
      for (std::string l; line.empty() && std::getline(lines, l);)
        if ((l.rfind("PASS", 0) == 0 || l.rfind("FAIL", 0) == 0) &&
            l.find(object) != std::string::npos)
          line = l;
      EXPECT_EQ(r.exit_code, exit_status) << what << ": " << r.describe();
      EXPECT_NE(line.find(verdict), std::string::npos)
          << what << ": no line for " << object << " saying " << verdict << ":\n"
          << r.out;
      node_rows.push_back({what, r.exit_code, line});
    };
    auto fence_info = [&](const std::string& what, const std::string& holders, int exit_status,
                          const std::string& expect) {
      auto r = netns::test::run_command({NETNS_EXEC_BIN, "fence-info", "--holder-dir", holders,
                                         "--node-netns", node_ns.ns_path()},
                                        holder_test::within(20s));
      std::string line = r.exit_code == 0 ? std::string() : first_line(r.err);
      std::istringstream lines(r.out);
      for (std::string l; line.empty() && std::getline(lines, l);)
        if (l.rfind("fence:", 0) == 0) line = l;
      EXPECT_EQ(r.exit_code, exit_status) << what << ": " << r.describe();
      EXPECT_NE(line.find(expect), std::string::npos) << what << ": " << r.describe();
      node_rows.push_back({what, r.exit_code, line});
    };

    doctor("doctor: rbd device whose client address is a live holder's",
           tree("served", "served", "198.18.31.50:0/1234", false), "rbd /dev/rbd0", 0,
           "served by holder");
    doctor("doctor: rbd device whose client address no live holder has (its sandbox replaced)",
           tree("stranded", "stranded", "198.18.31.77:0/999", false), "rbd /dev/rbd0", 1,
           "this mapping will hang; its namespace is gone");
    doctor("doctor: ceph mount whose client address no live holder has",
           tree("cephfs", "", "198.18.31.77:0/555", true), "cephfs /mnt/pv1", 1,
           "its namespace is gone");
    fence_info("fence-info: the node and a live holder", dir, 0,
               "fence: 198.18.31.50/32 198.18.32.1/32");
    {
      // A version-1 record (a holder too old to publish its addresses).
      const std::string old = tmp / "old-holders";
      make_dir(old);
      write_file(old + "/" + kId + ".holder.json",
                 netns::read_file(NETNS_SOURCE_DIR "/test/fixtures/compat/v1/ceph-a.holder.json"));
      fence_info("fence-info: a holder's record too old to name its addresses", old, 1,
                 "record version 1 does not publish client addresses");
    }
    // The readiness probe as the chart runs it (netns-holder check, inside
    // the holder's namespace): ready with net1, not once net1 is down; the
    // holder keeps its files, which the mappings in it still need.
    auto check = [&](const std::string& what, int exit_status, const std::string& expect) {
      auto r = netns::test::run_command(
          {"nsenter", "--net=" + served->ns_path(), "--", holder_test::kHolder, "check",
           "--cluster-id", kId, "--dir", dir, "--require-interface", "net1"},
          holder_test::within(10s));
      std::string line;
      std::istringstream lines(r.out + r.err);
      for (std::string l; line.empty() && std::getline(lines, l);)
        if (l.find(expect) != std::string::npos) line = l;
      EXPECT_EQ(r.exit_code, exit_status) << what << ": " << r.describe();
      EXPECT_FALSE(line.empty()) << what << ": nothing says " << expect << ":\n" << r.describe();
      node_rows.push_back({what, r.exit_code, line});
    };
    check("holder check --require-interface net1, net1 up with its address", 0,
          "required interfaces ready");
    ip_in(served->ns_path(), {"link", "set", "net1", "down"});
    EXPECT_TRUE(netns::test::wait_until(
        [&] {
          return served->err().find("storage network lost: net1 is down") != std::string::npos;
        },
        10s))
        << served->err();
    check("holder check --require-interface net1, net1 down after the holder published", 1,
          "storage network not ready: net1 is down");
    EXPECT_TRUE(holder_test::exists(record)) << "the holder keeps its files";

    // The controls: without the holder the device it served is stranded too,
    // and the fence is the node's own address alone.
    ASSERT_TRUE(served->stop(SIGTERM).has_value());
    doctor("doctor: the served rbd device, once its holder is gone",
           tree("unserved", "served", "198.18.31.50:0/1234", false), "rbd /dev/rbd0", 1,
           "its namespace is gone");
    fence_info("fence-info: the node, its holder gone", dir, 0, "fence: 198.18.32.1/32");
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
    EXPECT_NE(message.find("exited after the namespace was validated"), std::string::npos)
        << message;
    rows.push_back({"holder dies between resolve and exec (library: resolve, SIGKILL, run_in)", 125,
                    "(netns::Error) " + first_line(message)});
  }

  // The table.
  std::ostringstream doc;
  doc << "# Fault matrix\n\n"
         "Generated by `test/privileged/hardening_fault_matrix_test.cpp` against a live\n"
         "`netns-holder`; the test fails when this file is out of date. Regenerate with\n"
         "`NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix` (root). For every row of this\n"
         "first table the command (`sh -c 'echo ran > MARKER'`) never ran, and the message\n"
         "names the cause.\n"
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
    for (size_t at; (at = message.find(boot)) != std::string::npos;)
      message.replace(at, boot.size(), "<boot-id>");
    doc << "| " << i + 1 << " | " << rows[i].fault << " | " << rows[i].exit_status << " | `"
        << normalize(message, tmp.path(), numbers) << "` |\n";
  }
  doc << "\n## Cancelled map, unmap, mount and umount\n\n"
         "Each row is one `netns-exec map | unmap | mount | umount --json` against the live\n"
         "holder, cancelled by SIGTERM (how a caller stops the CLI it started) or\n"
         "`--timeout` at one point of the command. The commands are stand-in `rbd`, `mount`\n"
         "and `umount` programs on PATH that announce each step on a FIFO and then wait, for\n"
         "their own SIGTERM or for the test, so the cancel point is ordered by events; the\n"
         "kernel state they change (the krbd sysfs, `/proc/filesystems`, the mount table) is\n"
         "the test's files, which netns-exec sees in a mount namespace of its own. A started\n"
         "command is given `--cancel-grace` to finish, then SIGTERM; whatever a map or mount\n"
         "made is undone before netns-exec exits. \"cancel\" is the `--json` outcome word;\n"
         "\"left\" is what the node holds afterwards.\n\n"
         "| # | cancelled | exit status | cancel | left | message (first line) |\n"
         "|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < cancel_rows.size(); ++i) {
    const CancelRow& c = cancel_rows[i];
    doc << "| " << i + 1 << " | " << c.when << " | " << c.exit_status << " | `" << c.cancel
        << "` | " << c.left << " | `" << normalize(c.message, tmp.path(), numbers) << "` |\n";
  }
  doc << "\n## The node: mappings nobody serves, the fence, readiness\n\n"
         "`netns-exec doctor`, `fence-info` and `netns-holder check` against a holder\n"
         "(`--require-interface net1`) whose namespace has 198.18.31.50 on net1, a namespace\n"
         "standing in for the node's own (198.18.32.1), and a stand-in krbd sysfs, ceph\n"
         "debugfs and mount table per row (the kernel suite's `kernel.orphan` is the real\n"
         "one). The line is doctor's for the mapping,\n"
         "fence-info's `fence:` line (its warning when the answer is incomplete), or check's\n"
         "answer. The last two rows are the controls, after the holder stopped.\n\n"
         "| # | case | exit status | line |\n"
         "|---|---|---|---|\n";
  for (size_t i = 0; i < node_rows.size(); ++i)
    doc << "| " << i + 1 << " | " << node_rows[i].what << " | " << node_rows[i].exit_status
        << " | `" << normalize(node_rows[i].line, tmp.path(), numbers) << "` |\n";
  const std::string generated = doc.str();
  const std::string committed_path = std::string(NETNS_SOURCE_DIR) + "/design/fault-matrix.md";
  const char* update = std::getenv("NETNS_UPDATE_FAULT_MATRIX");
  if (update != nullptr && std::string(update) == "1") {
    write_file(committed_path, generated);
    std::printf("rewrote %s (%zu + %zu + %zu rows)\n", committed_path.c_str(), rows.size(),
                cancel_rows.size(), node_rows.size());
    return;
  }
  std::string committed;
  try {
    committed = netns::read_file(committed_path);
  } catch (const netns::Error& e) {
    FAIL() << e.describe() << "\nGenerate it: NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix";
  }
  EXPECT_EQ(committed, generated)
      << committed_path
      << " is out of date; regenerate: NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix";
}

}  // namespace
