// The fault matrix (design/fault-matrix.md): every fault listed there against a
// live holder, one test case per row, so that one fault runs alone
// (--gtest_filter='*/missing_file') and a row that fails hides no other. For
// each refusal: the command never ran (it would have left a marker file), the
// exit status is 125, and the message names the cause. Two more tables follow
// the refusals: cancelled map / unmap / mount / umount (stand-in programs
// ordered by FIFO events; what netns-exec exits with, its --json "cancel"
// word, what the node holds afterwards), and doctor's and fence-info's answers
// for mappings nobody serves, with their controls.
//
// The tables below are the one home of each row's facts; every row sets up
// what it alone needs in a fixture of its own (its own temporary directory
// and live holder), so the rows run in any order. Each row's line of the
// document is compared with the committed design/fault-matrix.md (the test
// fails when the document is out of date), and
//   NETNS_UPDATE_FAULT_MATRIX=1 ctest -R FaultMatrix
// rewrites it, a row's line at a time (fault_matrix_doc.hpp). Temp paths and
// numbers (pids, inodes, start times) are normalized so the table is the same
// on every run and machine.
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
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "fault_matrix_doc.hpp"
#include "holder_helpers.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/kernel_ids.hpp"
#include "netns/proc.hpp"
#include "netns_exec/executor.hpp"
#include "netns_exec/netns_exec.h"

namespace {

using namespace std::chrono_literals;

using fault_matrix_doc::Section;
using holder_test::Holder;
using netns::test::ip_in;
using netns::test::NetnsChild;
using netns::test::RunResult;
using netns::test::TempDir;

constexpr const char* kId = "ceph-a";  // the holder's dir is private, so the ID need not be unique
constexpr uid_t kNobody = 65534;
constexpr int kRefused = 125;  // every row of the first table: nothing ran

// The three tables' cells, for the document (defined after the tables).
fault_matrix_doc::Cells table_cells();

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

// A thread that answers one client of `listener` with `header` and the
// descriptor `fd`. Bounded: the CLI's connect comes within seconds.
std::thread answer_once(int listener, const netns::FdHeader& header, int fd) {
  return std::thread([listener, header, fd] {
    pollfd pfd{listener, POLLIN, 0};
    if (::poll(&pfd, 1, 10000) != 1) return;
    netns::UniqueFd conn = netns::accept_fd(listener);
    try {
      netns::send_fd(conn.get(), header, fd);
    } catch (const netns::Error&) {}
  });
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

// "$TMP" in a row's expected text: the row's temporary directory.
std::string in_tmp(std::string text, const std::string& tmp) {
  for (size_t at; (at = text.find("$TMP")) != std::string::npos;) text.replace(at, 4, tmp);
  return text;
}

// What a refused call left: its exit status and stderr (or the library's
// error), whether the command ran, and, for the CLI run directly, whether
// it was stopped by a signal or the timeout.
struct Refusal {
  int exit_status = -1;
  std::string err;
  bool ran = false;
  bool cli = false;
  bool stopped = false;
  std::string describe;
};

// What a cancellation or node row saw: the exit status and its line.
struct Seen {
  int exit_status = -1;
  std::string line;
};

struct FaultMatrix : ::testing::Test {
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
    holder_ns = "/proc/" + std::to_string(holder->pid()) + "/ns/";
    numbers.emplace_back(std::to_string(holder->pid()), "<holder-pid>");
    numbers.emplace_back(std::to_string(live_record().pid_start_time), "<holder-start-time>");
    numbers.emplace_back(std::to_string(live_record().pidns_ino), "<our-pidns-ino>");
    numbers.emplace_back(std::to_string(netns::current_netns_id().ino), "<our-netns-ino>");
    numbers.emplace_back(std::to_string(::getpid()), "<test-pid>");
    numbers.emplace_back(std::to_string(holder->ns_id().ino), "<holder-netns-ino>");
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

  // The row's refused call through the CLI: the marker is looked at at once,
  // before a control that follows may leave it.
  void refused(const std::vector<std::string>& args, std::optional<uid_t> uid = std::nullopt,
               const std::vector<std::string>& wrapper = {}) {
    RunResult r = exec(args, uid, wrapper);
    refusal =
        Refusal{r.exit_code, r.err, marker_exists(), true, r.signaled || r.timed_out, r.describe()};
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
  void refused_op(const std::vector<std::string>& args) { record_refusal(exec_op(args)); }
  // A run that must have been refused (a Ceph operation, a shim).
  void record_refusal(const RunResult& r) {
    refusal = Refusal{r.exit_code, r.err, marker_exists(), false, false, r.describe()};
  }
  std::string stub_dir() const { return tmp / "stubs"; }
  void make_stubs() {
    make_dir(stub_dir());
    for (const char* name : {"rbd", "mount", "umount", "ceph-fuse", "modprobe"})
      write_file(stub_dir() + "/" + name, "#!/bin/sh\necho ran > " + marker() + "\n", 0755);
  }
  // map's arguments but the namespace (the keyfile is plant()'s).
  std::vector<std::string> stub_map_args() const {
    return {"--pool",          "p",    "--image", "i",         "--mon",
            "198.18.0.1:6789", "--id", "admin",   "--keyfile", tmp / "keyfile"};
  }
  // The stubs, a keyfile, a mount target, and a holder directory anyone can
  // write (0777) with the live holder's link and record: `planted`, its link.
  void plant(std::string& planted) {
    make_stubs();
    planted = fake_holder_dir("planted", holder_ns + "net", record_text);
    ASSERT_EQ(::chmod((tmp / "planted").c_str(), 0777), 0);
    write_file(tmp / "keyfile", "AQBfake==\n", 0600);
    make_dir(tmp / "target");
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

  // The live holder's link beside `record`, in the directory `name`, refused.
  void refused_with_record(const std::string& name, const netns::HolderRecord& record) {
    refused({"run", "--netns",
             fake_holder_dir(name, holder_ns + "net", netns::serialize_record(record))});
  }

  netns::HolderRecord live_record() const { return netns::parse_record(record_text, "record"); }

  // ceph-csi's config naming the live holder's link for ceph-a.
  std::string config() {
    const std::string path = tmp / "config.json";
    write_file(path,
               "[{\"clusterID\": \"ceph-a\", \"monitors\": [\"198.18.0.1:6789\"], "
               "\"rbd\": {\"netNamespaceFilePath\": \"" +
                   link + "\"}}]\n");
    return path;
  }

  // The unrecorded namespace `file`: refused without the opt-in; the
  // control: with --allow-unrecorded-netns the same file runs.
  void unrecorded(const std::string& file) {
    refused({"run", "--netns", file});
    RunResult r = exec({"run", "--allow-unrecorded-netns", "--netns", file});
    EXPECT_TRUE(r.ok() && marker_exists())
        << "control: " << file << " with the opt-in: " << r.describe();
    ::unlink(marker().c_str());
  }

  // A holder in its own directory `name`, started with `flags`, that logs
  // `not_yet` and so publishes nothing: the call naming its link is refused.
  void refused_unpublished(const std::string& name, const std::vector<std::string>& flags,
                           const std::string& not_yet) {
    const std::string dir = tmp / name;
    make_dir(dir);
    Holder waiting(dir, kId, flags);
    ASSERT_TRUE(netns::test::wait_until(
        [&] { return waiting.err().find(not_yet) != std::string::npos; }, 10s))
        << waiting.err();
    refused({"run", "--netns", dir + "/" + std::string(kId) + ".net.ns"});
    waiting.stop(SIGTERM);
  }

  // --- transparent mode: netns-exec installed as rbd and nvme -----------------
  // The real programs are stubs that would leave the marker.
  std::string shim_config() {
    const std::string path = tmp / "shim-config.json";
    write_file(path, R"([{"clusterID": "ceph-a", "monitors": ["198.18.0.1:6789"]},
                            {"clusterID": "ceph-b", "monitors": ["198.18.0.10:6789"]}])");
    return path;
  }
  void shim(const std::string& tool, const std::vector<std::string>& args,
            std::map<std::string, std::string> env) {
    const std::string bin = tmp / "shims";
    make_dir(bin);
    for (const char* name : {"rbd", "nvme"})
      ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (bin + "/" + name).c_str()), 0);
    const std::string real = tmp / "real";
    make_dir(real);
    for (const char* name : {"rbd", "nvme"})
      write_file(real + "/" + name, "#!/bin/sh\necho ran > " + marker() + "\n", 0755);
    ::unlink(marker().c_str());
    std::vector<std::string> argv = {bin + "/" + tool};
    argv.insert(argv.end(), args.begin(), args.end());
    netns::test::RunOptions options = holder_test::within(20s);
    env.emplace("PATH", bin + ":" + real + ":/usr/sbin:/usr/bin:/sbin:/bin");
    env.emplace("NETNS_EXEC_CONFIG", shim_config());
    env.emplace("NETNS_EXEC_HOLDER_DIR", tmp / "shim-holders");
    env.emplace("CEPH_CONF", tmp / "no-ceph.conf");
    options.env = env;
    record_refusal(netns::test::run_command(argv, options));
  }

  // What a message shows in the document: $TMP and <placeholders>.
  std::string shown(const std::string& text) const { return normalize(text, tmp.path(), numbers); }
  // Checks the row's last cell against the committed document, or rewrites
  // it there (NETNS_UPDATE_FAULT_MATRIX=1).
  void document(Section section, const std::string& cells, const std::string& last) {
    if (fault_matrix_doc::updating()) {
      fault_matrix_doc::rewrite(table_cells(), section, cells, last);
      std::printf("rewrote this row of %s\n", fault_matrix_doc::kPath.c_str());
      return;
    }
    std::string committed;
    try {
      committed = netns::read_file(fault_matrix_doc::kPath);
    } catch (const netns::Error& e) {
      FAIL() << e.describe() << "\nGenerate it: " << fault_matrix_doc::kRegenerate;
    }
    EXPECT_EQ(fault_matrix_doc::last_cell(committed, section, cells).value_or("(no line)"), last)
        << fault_matrix_doc::kPath
        << " is out of date for this row; regenerate: " << fault_matrix_doc::kRegenerate;
  }

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
  void cancel_and_wait_seen() {
    op->kill(SIGTERM);
    const std::string task = "/proc/" + std::to_string(op->pid()) + "/task";
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

  // netns-exec map | mount against the live holder in the stand-in node,
  // given `grace` to finish when cancelled.
  std::vector<std::string> cancel_map(const std::string& grace,
                                      const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> a = {"map",
                                  "--netns",
                                  link,
                                  "--pool",
                                  "p",
                                  "--image",
                                  "i",
                                  "--mon",
                                  "198.18.0.1:6789",
                                  "--id",
                                  "admin",
                                  "--keyfile",
                                  cancel_dir() + "/keyfile",
                                  "--cancel-grace",
                                  grace};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::vector<std::string> cancel_mount(const std::string& grace,
                                        const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> a = {"mount",         "--netns",         link,
                                  "--mon",         "198.18.0.1:6789", "--id",
                                  "admin",         "--keyfile",       cancel_dir() + "/keyfile",
                                  cancel_target(), "--cancel-grace",  grace};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::vector<std::string> cancel_unmap() const {
    return {"unmap", "--netns", link, "/dev/rbd0", "--cancel-grace", "20s"};
  }
  std::vector<std::string> cancel_umount() const {
    return {"umount", "--netns", link, cancel_target(), "--cancel-grace", "20s"};
  }
  // The device a map made, for the unmap rows.
  void mapped_device() {
    make_dir(cancel_device());
    for (const auto& [file, text] : std::map<std::string, std::string>{
             {"pool", "p\n"}, {"name", "i\n"}, {"current_snap", "-\n"}, {"pool_ns", ""}})
      write_file(cancel_device() + "/" + file, text);
  }

  TempDir tmp;
  const std::string holder_dir = tmp / "holder";
  const std::string marker_dir = tmp / "marker";
  const std::string link = holder_dir + "/" + kId + ".net.ns";
  std::unique_ptr<Holder> holder;
  std::string record_text;
  std::string holder_ns;  // /proc/PID/ns/ of the live holder
  Placeholders numbers;
  std::optional<Refusal> refusal;            // the refusal row's one refused call
  std::unique_ptr<netns::test::Process> op;  // the cancellation row's netns-exec
  netns::UniqueFd cancel_events, cancel_go;
  std::string events_seen;
};

// The controls: what the refusal rows change runs when it is right, so "no
// marker" in a row means refused, not broken.
TEST_F(FaultMatrix, ControlTheLiveHoldersLinkRunsTheCommand) {
  RunResult r = exec({"run", "--netns", link});
  ASSERT_TRUE(r.ok()) << r.describe();
  ASSERT_TRUE(marker_exists());
}

TEST_F(FaultMatrix, ControlTheConfigPathRunsTheCommand) {
  RunResult r = exec({"run", "--cluster-id", kId, "--config", config()});
  ASSERT_TRUE(r.ok()) << r.describe();
  ASSERT_TRUE(marker_exists());
}

TEST_F(FaultMatrix, ControlTheStubRbdRunsThroughTheLiveHolder) {
  std::string planted;
  ASSERT_NO_FATAL_FAILURE(plant(planted));
  std::vector<std::string> ok = {"map", "--netns", link};
  for (const auto& a : stub_map_args()) ok.push_back(a);
  (void)exec_op(ok);
  ASSERT_TRUE(marker_exists()) << "the stub rbd did not run through the live holder";
}

// --- the refusals -------------------------------------------------------------

// One fault: its name for --gtest_filter, the table's words for it, what the
// message must name ("$TMP": the row's directory), and the row's steps: they
// set the fault up and make the one call that must be refused (refused: the
// CLI; refused_op: a Ceph operation; shim: transparent mode; or the C ABI or
// the library), then any control that belongs to the row.
struct Fault {
  const char* name;
  const char* fault;
  std::vector<std::string> causes;
  std::function<void(FaultMatrix&)> steps;
};

void PrintTo(const Fault& row, std::ostream* os) { *os << row.fault; }

std::string cells(const Fault& row) {
  return std::string(row.fault) + " | " + std::to_string(kRefused);
}

std::vector<Fault> faults() {
  using H = netns::HolderRecord;
  return {
      {"missing_file",
       "missing file",
       {"ENOENT", "does not exist"},
       [](FaultMatrix& t) {
         t.refused({"run", "--netns", t.tmp / "absent/ceph-a.net.ns"});
       }},
      {"missing_file_in_an_existing_dir",
       "missing file in an existing dir",
       {"ENOENT", "cluster \"ceph-a\""},
       [](FaultMatrix& t) {
         make_dir(t.tmp / "empty");
         t.refused({"run", "--netns", t.tmp / "empty/ceph-a.net.ns"});
       }},
      {"dangling_link",
       "dangling link",
       {"dangling symlink", "ENOENT"},
       [](FaultMatrix& t) {
         t.refused({"run", "--netns",
                    t.fake_holder_dir("dangling", t.tmp / "nowhere/net", std::nullopt)});
       }},
      {"pid_reuse",
       "link to a live unrelated namespace, holder's record in place (pid reuse)",
       {"reused by another process", "start time"},
       [](FaultMatrix& t) {
         // The record still names the holder's start time and namespace, but its
         // pid now belongs to an unrelated live process (in another namespace),
         // started later: one started in the holder's own clock tick (the
         // fixture's holder is only milliseconds old) has its start time too,
         // which is the pidfs-inode row's case, not this one.
         H reused = t.live_record();
         auto unrelated = std::make_unique<NetnsChild>();
         while (netns::pid_start_time(unrelated->pid()) == reused.pid_start_time) {
           unrelated.reset();
           std::this_thread::sleep_for(10ms);
           unrelated = std::make_unique<NetnsChild>();
         }
         reused.pid = unrelated->pid();
         t.numbers.emplace_back(std::to_string(unrelated->pid()), "<unrelated-pid>");
         t.numbers.emplace_back(std::to_string(netns::pid_start_time(unrelated->pid()).value_or(0)),
                                "<unrelated-start-time>");
         t.refused(
             {"run", "--netns",
              t.fake_holder_dir("reused", unrelated->ns_path(), netns::serialize_record(reused))});
       }},
      {"own_namespace",
       "link to the caller's own namespace",
       {"own network namespace"},
       [](FaultMatrix& t) {
         t.refused({"run", "--netns",
                    t.fake_holder_dir("own", "/proc/" + std::to_string(::getpid()) + "/ns/net",
                                      std::nullopt)});
       }},
      {"proc_1_from_a_pod",
       "link to /proc/1/ns/net (read from a pod's pid namespace)",
       {"own network namespace"},
       [](FaultMatrix& t) {
         // What a holder that is PID 1 of its pid namespace would publish. Read by a
         // plugin without hostPID, /proc/1 is its own pod's first process, which
         // shares the plugin's network namespace. The executor runs as PID 1 of a
         // fresh pid namespace with its own /proc here, so /proc/1 means the same on
         // every machine (the real init's namespace may not even be readable).
         t.refused({"run", "--netns", t.fake_holder_dir("init", "/proc/1/ns/net", std::nullopt)},
                   std::nullopt, {"unshare", "--pid", "--fork", "--mount-proc", "--kill-child"});
       }},
      {"record_from_another_pidns",
       "record from a holder in another pid namespace",
       {"pid namespace", "hostPID"},
       [](FaultMatrix& t) {
         // The record of a holder in another pid namespace: its pid means another
         // process to us, so nothing else in it can be checked.
         H foreign = t.live_record();
         foreign.pidns_ino += 1;
         t.numbers.emplace_back(std::to_string(foreign.pidns_ino), "<other-pidns-ino>");
         t.refused_with_record("pidns", foreign);
       }},
      {"mount_namespace_file",
       "mount-namespace file",
       {"not a network namespace", "mnt"},
       [](FaultMatrix& t) {
         t.refused({"run", "--netns", t.holder_ns + "mnt"});
       }},
      {"pid_namespace_file",
       "pid-namespace file",
       {"not a network namespace", "pid"},
       [](FaultMatrix& t) {
         t.refused({"run", "--netns", t.holder_ns + "pid"});
       }},
      {"regular_file",
       "regular file",
       {"not a namespace file"},
       [](FaultMatrix& t) {
         write_file(t.tmp / "regular", "not a namespace\n");
         t.refused({"run", "--netns", t.tmp / "regular"});
       }},
      {"directory",
       "directory",
       {"not a namespace file"},
       [](FaultMatrix& t) {
         make_dir(t.tmp / "adir");
         t.refused({"run", "--netns", t.tmp / "adir"});
       }},
      {"symlink_loop",
       "symlink loop",
       {"ELOOP"},
       [](FaultMatrix& t) {
         make_dir(t.tmp / "loop");
         make_link("b.net.ns", t.tmp / "loop/a.net.ns");
         make_link("a.net.ns", t.tmp / "loop/b.net.ns");
         t.refused({"run", "--netns", t.tmp / "loop/a.net.ns"});
       }},
      {"unreadable_as_nobody",
       "unreadable file (the holder's link, as uid 65534)",
       {"EACCES"},
       [](FaultMatrix& t) {
         t.refused({"run", "--netns", t.link}, kNobody);
       }},
      {"future_record_version",
       "record with a future version",
       {"record version 3 is not supported"},
       [](FaultMatrix& t) {
         std::string future = t.record_text;
         size_t at = future.find("\"version\": 2,");
         ASSERT_NE(at, std::string::npos) << t.record_text;
         future.replace(at, 13, "\"version\": 3,");
         t.refused({"run", "--netns", t.fake_holder_dir("future", t.holder_ns + "net", future)});
       }},
      {"record_for_another_cluster",
       "record for another cluster ID",
       {"for cluster \"ceph-b\", not \"ceph-a\""},
       [](FaultMatrix& t) {
         H other = t.live_record();
         other.cluster_id = "ceph-b";
         t.refused_with_record("other", other);
       }},

      // --- ceph-csi's config --------------------------------------------------
      {"cluster_id_with_traversal",
       "cluster ID with traversal",
       {"invalid cluster ID", "not allowed"},
       [](FaultMatrix& t) {
         t.refused({"run", "--cluster-id", "../../etc/x", "--config", t.config()});
       }},
      {"config_missing",
       "config missing",
       {"ENOENT", "absent.json"},
       [](FaultMatrix& t) {
         t.refused({"run", "--cluster-id", kId, "--config", t.tmp / "absent.json"});
       }},
      {"config_owned_by_nobody",
       "config owned by an unprivileged user",
       {"is owned by uid 65534", "foreign.json"},
       [](FaultMatrix& t) {
         write_file(t.tmp / "foreign.json", netns::read_file(t.config()));
         ASSERT_EQ(::chown((t.tmp / "foreign.json").c_str(), kNobody, kNobody), 0);
         t.refused({"run", "--cluster-id", kId, "--config", t.tmp / "foreign.json"});
       }},
      {"config_writable_by_others",
       "config writable by others",
       {"is writable by group or others", "writable.json"},
       [](FaultMatrix& t) {
         write_file(t.tmp / "writable.json", netns::read_file(t.config()), 0666);
         ASSERT_EQ(::chmod((t.tmp / "writable.json").c_str(), 0666), 0);
         t.refused({"run", "--cluster-id", kId, "--config", t.tmp / "writable.json"});
       }},
      {"config_malformed",
       "config malformed",
       {"parse", "malformed.json"},
       [](FaultMatrix& t) {
         write_file(t.tmp / "malformed.json", "[{\"clusterID\": \"ceph-a\",\n");
         t.refused({"run", "--cluster-id", kId, "--config", t.tmp / "malformed.json"});
       }},
      {"config_mistyped_elsewhere",
       "config with a wrong type in another cluster's entry",
       {"entry 2, field \"monitors\" is a string", "ceph-csi uses no cluster of it"},
       [](FaultMatrix& t) {
         // ceph-csi's encoding/json fails the whole file on a wrong type anywhere,
         // so ceph-csi uses no cluster of it: neither does netns-exec, though this
         // entry (keys spelled as Go folds them) names the live holder.
         write_file(t.tmp / "mistyped.json",
                    "[{\"ClusterID\": \"ceph-a\", \"RBD\": {\"NetNamespaceFilePath\": \"" + t.link +
                        "\"}}, {\"clusterID\": \"ceph-b\", \"monitors\": \"198.18.0.1\"}]\n");
         t.refused({"run", "--cluster-id", kId, "--config", t.tmp / "mistyped.json"});
       }},
      {"cluster_absent_from_config",
       "cluster absent from the config",
       {"cluster \"ceph-z\" is not in"},
       [](FaultMatrix& t) {
         t.refused({"run", "--cluster-id", "ceph-z", "--config", t.config()});
       }},

      // --- sockets that are no holder's ---------------------------------------
      {"socket_without_listener",
       "socket path with no listener",
       {"ECONNREFUSED", "no holder is listening"},
       [](FaultMatrix& t) {
         std::string path = t.tmp / "deaf.net.sock";
         { netns::UniqueFd gone = bind_socket(path, false); }  // the file stays, nobody listens
         t.refused({"run", "--socket", path});
       }},
      {"socket_sending_garbage",
       "socket that accepts and sends garbage",
       {"bad header", "garbage.net.sock"},
       [](FaultMatrix& t) {
         std::string path = t.tmp / "garbage.net.sock";
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
         t.refused({"run", "--socket", path});
         server.join();
       }},

      // --- provenance: who wrote the files (root, or a --trust-uid) -------------
      // Each fake directory below holds a link to the live holder's namespace and
      // a record that matches it in every field (all of them are public), so the
      // only thing wrong is who could have written them.
      {"holder_dir_0777",
       "holder directory writable by others (0777), with a link and a matching record",
       {"writable by group or others", "0777"},
       [](FaultMatrix& t) {
         std::string path = t.fake_holder_dir("open", t.holder_ns + "net", t.record_text);
         ASSERT_EQ(::chmod((t.tmp / "open").c_str(), 0777), 0);
         t.refused({"run", "--netns", path});
       }},
      {"holder_dir_1777",
       "holder directory sticky and world-writable (1777)",
       {"writable by group or others", "1777"},
       [](FaultMatrix& t) {
         std::string path = t.fake_holder_dir("open", t.holder_ns + "net", t.record_text);
         ASSERT_EQ(::chmod((t.tmp / "open").c_str(), 01777), 0);
         t.refused({"run", "--netns", path});
       }},
      {"holder_dir_via_symlink",
       "holder directory is a symlink to another uid's directory",
       {"owned by uid 65534", "--trust-uid"},
       [](FaultMatrix& t) {
         // The last component of the path is a symlink an unprivileged user made to
         // a directory of its own.
         std::string path = t.fake_holder_dir("users", t.holder_ns + "net", t.record_text);
         ASSERT_EQ(::chown((t.tmp / "users").c_str(), kNobody, kNobody), 0);
         make_link(t.tmp / "users", t.tmp / "via-symlink");
         t.refused({"run", "--netns", t.tmp / "via-symlink/ceph-a.net.ns"});
       }},
      {"link_owned_by_nobody",
       "link owned by another uid",
       {"link", "owned by uid 65534"},
       [](FaultMatrix& t) {
         std::string path = t.fake_holder_dir("foreign-link", t.holder_ns + "net", t.record_text);
         ASSERT_EQ(::lchown(path.c_str(), kNobody, kNobody), 0);
         t.refused({"run", "--netns", path});
       }},
      {"record_owned_by_nobody",
       "record owned by another uid",
       {"holder record", "owned by uid 65534"},
       [](FaultMatrix& t) {
         std::string path = t.fake_holder_dir("foreign-record", t.holder_ns + "net", t.record_text);
         ASSERT_EQ(::chown((t.tmp / "foreign-record/ceph-a.holder.json").c_str(), kNobody, kNobody),
                   0);
         t.refused({"run", "--netns", path});
       }},
      {"link_without_record",
       "link without a record (Rook-era holder) under the default --identity require",
       {"must come with its record", "--identity if-present"},
       [](FaultMatrix& t) {
         std::string path = t.fake_holder_dir("rook", t.holder_ns + "net", std::nullopt);
         t.refused({"run", "--netns", path});
         RunResult r = t.exec({"run", "--identity", "if-present", "--netns", path});
         EXPECT_TRUE(r.ok() && t.marker_exists())
             << "--identity if-present accepts it: " << r.describe();
       }},

      // --- provenance over every hop ----------------------------------------------
      // Each directory and symlink on the way, the link's own target path and
      // the way to the config included (walked from "/", trusted_path.hpp).
      {"link_target_through_nobodys_dir",
       "link whose target runs through a directory owned by uid 65534",
       {"owned by uid 65534", "on the way to"},
       [](FaultMatrix& t) {
         // The link's target runs through a directory uid 65534 owns: it could
         // put another namespace at that name at any moment.
         make_dir(t.tmp / "users-tree");
         make_link(t.holder_ns + "net", t.tmp / "users-tree/net");
         ASSERT_EQ(::chown((t.tmp / "users-tree").c_str(), kNobody, kNobody), 0);
         t.refused({"run", "--netns",
                    t.fake_holder_dir("hop-target", t.tmp / "users-tree/net", t.record_text)});
       }},
      {"nobodys_symlink_earlier",
       "uid 65534's symlink earlier in the path (sticky directory, fs.protected_symlinks=0)",
       {"symlink", "owned by uid 65534"},
       [](FaultMatrix& t) {
         // uid 65534's symlink earlier in the path, in a sticky world-writable
         // directory, to the live holder's own directory, with
         // fs.protected_symlinks=0 (the kernel would follow it for root).
         make_dir(t.tmp / "sticky", 01777);
         make_link(t.holder_dir, t.tmp / "sticky/holders");
         const std::string via = t.tmp / "sticky/holders/ceph-a.net.ns";
         ProtectedSymlinks unprotected("0");
         ASSERT_EQ(::lchown((t.tmp / "sticky/holders").c_str(), kNobody, kNobody), 0);
         t.refused({"run", "--netns", via});
         // The control: root's symlink there leads to the live holder and runs.
         ASSERT_EQ(::lchown((t.tmp / "sticky/holders").c_str(), 0, 0), 0);
         RunResult r = t.exec({"run", "--netns", via});
         EXPECT_TRUE(r.ok() && t.marker_exists()) << "root's symlink: " << r.describe();
       }},
      {"config_in_nobodys_dir",
       "config in a directory owned by uid 65534 (the file root's, 0644)",
       {"owned by uid 65534", "users-config"},
       [](FaultMatrix& t) {
         // A root-owned, 0644 config in a directory uid 65534 owns: it could
         // replace the file (and the path in it) at any moment.
         make_dir(t.tmp / "users-config");
         write_file(t.tmp / "users-config/config.json", netns::read_file(t.config()));
         ASSERT_EQ(::chown((t.tmp / "users-config").c_str(), kNobody, kNobody), 0);
         t.refused({"run", "--cluster-id", kId, "--config", t.tmp / "users-config/config.json"});
       }},

      // --- the record for every file in a holder directory --------------------------
      // A second link in the live holder's own directory, named otherwise, to
      // a namespace no record describes (a reused pid behind a Rook-era name).
      {"stray_link_no_cluster",
       "a link named otherwise in a holder directory (no cluster named)",
       {"is a holder directory", "without a cluster ID"},
       [](FaultMatrix& t) {
         NetnsChild stray;
         make_link(stray.ns_path(), t.holder_dir + "/rook-a.net");
         t.refused({"run", "--netns", t.holder_dir + "/rook-a.net"});
         ASSERT_EQ(::unlink((t.holder_dir + "/rook-a.net").c_str()), 0);
       }},
      {"stray_link_for_unrecorded_cluster",
       "a file named otherwise in a holder directory, for a cluster with no record there",
       {"ceph-b.holder.json", "is a holder directory"},
       [](FaultMatrix& t) {
         NetnsChild stray;
         make_link(stray.ns_path(), t.holder_dir + "/rook-a.net");
         const std::string for_b = t.tmp / "config-b.json";
         write_file(for_b, "[{\"clusterID\": \"ceph-b\", \"rbd\": {\"netNamespaceFilePath\": \"" +
                               t.holder_dir + "/rook-a.net\"}}]\n");
         t.refused({"run", "--cluster-id", "ceph-b", "--config", for_b});
         ASSERT_EQ(::unlink((t.holder_dir + "/rook-a.net").c_str()), 0);
       }},

      // --- a namespace file no holder vouches for ------------------------------------
      // /run/netns/NAME and /proc/PID/ns/net: no record, in no holder directory,
      // so nothing proves whose namespace they are (unrecorded: the control).
      {"unrecorded_proc_pid",
       "/proc/PID/ns/net of a process that is no holder (no opt-in)",
       {"no holder record vouches for", "--allow-unrecorded-netns"},
       [](FaultMatrix& t) {
         NetnsChild plain;
         t.numbers.emplace_back(std::to_string(plain.pid()), "<plain-pid>");
         t.unrecorded(plain.ns_path());
       }},
      {"unrecorded_run_netns",
       "/run/netns/NAME from `ip netns add` (no opt-in)",
       {"no holder record vouches for", "--allow-unrecorded-netns"},
       [](FaultMatrix& t) {
         const std::string name = "fm-unrecorded-" + std::to_string(::getpid());
         t.numbers.insert(t.numbers.begin(), {name, "<name>"});
         ASSERT_TRUE(netns::test::run_command({"ip", "netns", "add", name}).ok())
             << "ip netns add " << name;
         struct Delete {
           std::string name;
           ~Delete() { (void)netns::test::run_command({"ip", "netns", "delete", name}); }
         } remove_named{name};
         t.unrecorded("/run/netns/" + name);
       }},

      // --- which namespace ------------------------------------------------------
      {"owned_by_another_userns",
       "namespace owned by a non-initial user namespace (unshare -Urn)",
       {"not by the initial user namespace", "unshare -Urn"},
       [](FaultMatrix& t) {
         netns::test::Process userns(
             {"unshare", "--user", "--map-root-user", "--net", "sleep", "60"});
         const std::string user_ns = "/proc/" + std::to_string(userns.pid()) + "/ns/user";
         ASSERT_TRUE(netns::test::wait_until(
             [&] {
               return netns::test::ns_id_of_path(user_ns) !=
                      netns::test::ns_id_of_path("/proc/self/ns/user");
             },
             5s));
         t.numbers.emplace_back(std::to_string(netns::test::ns_id_of_path(user_ns).ino),
                                "<other-userns-ino>");
         t.refused({"run", "--netns",
                    t.fake_holder_dir("userns", "/proc/" + std::to_string(userns.pid()) + "/ns/net",
                                      std::nullopt)});
       }},
      {"host_namespace",
       "the host's network namespace, from a caller in another namespace",
       {"host's network namespace"},
       [](FaultMatrix& t) {
         // The host's namespace, to a caller that is elsewhere (netns-exec runs in a
         // fresh network namespace here). Known on a kernel that gives init_net its
         // fixed inode (6.18 and later), or with hostPID through /proc/1/ns/net.
         t.refused({"run", "--netns",
                    t.fake_holder_dir("host", "/proc/" + std::to_string(::getpid()) + "/ns/net",
                                      std::nullopt)},
                   std::nullopt, {"unshare", "--net", "--"});
       }},

      // --- the record against the live holder -----------------------------------
      {"record_from_before_reboot",
       "record from before the last reboot (boot id mismatch)",
       {"before the last reboot"},
       [](FaultMatrix& t) {
         H rebooted = t.live_record();
         rebooted.boot_id = "00000000-0000-0000-0000-000000000000";
         t.refused_with_record("boot", rebooted);
       }},
      {"record_pid_gone",
       "record names a pid that is gone",
       {"is gone", "ESRCH"},
       [](FaultMatrix& t) {
         pid_t gone = 0;
         {
           netns::test::Process exited({"true"});
           gone = exited.pid();
           ASSERT_TRUE(exited.wait(5s).has_value());
         }
         H dead = t.live_record();
         dead.pid = gone;
         t.numbers.emplace_back(std::to_string(gone), "<exited-pid>");
         t.refused_with_record("gone", dead);
       }},
      {"holder_moved",
       "holder moved to another namespace",
       {"is now in"},
       [](FaultMatrix& t) {
         // The record's pid is alive with the recorded start time, and the link
         // opens the recorded namespace, but that process is in another namespace
         // now: what a holder moved with setns would look like.
         NetnsChild moved;
         H record = t.live_record();
         record.pid = moved.pid();
         record.pid_start_time = netns::pid_start_time(moved.pid()).value_or(0);
         t.numbers.emplace_back(std::to_string(moved.pid()), "<moved-pid>");
         t.numbers.emplace_back(std::to_string(record.pid_start_time), "<moved-start-time>");
         t.numbers.emplace_back(std::to_string(moved.ns_id().ino), "<moved-netns-ino>");
         t.refused_with_record("moved", record);
       }},

      // --- identities the kernel never reuses --------------------------------------
      // What a pid, its start tick and a namespace inode cannot tell apart: each
      // row keeps every reusable field of the record matching the live holder and
      // changes only the never-reused one, as a holder that died and a process
      // that took its pid in the same tick (in a namespace that got the freed
      // inode) would leave it. Each applies only where this kernel has the
      // identity; test/privileged/trust_identity_test.cpp reproduces the
      // impostor itself.
      {"pidfs_inode_differs",
       "record's pid and start tick taken by another process (pidfs inode differs)",
       {"is not the process that wrote the record", "pidfs inode"},
       [](FaultMatrix& t) {
         if (!t.live_record().holder_pidfs_ino)
           GTEST_SKIP() << "this kernel gives a process no pidfs inode";
         H forged = t.live_record();
         t.numbers.emplace_back(std::to_string(*forged.holder_pidfs_ino), "<holder-pidfs-ino>");
         forged.holder_pidfs_ino = *forged.holder_pidfs_ino + 1;
         t.numbers.emplace_back(std::to_string(*forged.holder_pidfs_ino),
                                "<dead-holder-pidfs-ino>");
         t.refused_with_record("pidfs", forged);
       }},
      {"netns_cookie_differs",
       "namespace with the record's inode number but another cookie (inode reused)",
       {"another namespace that got the same inode number"},
       [](FaultMatrix& t) {
         if (!t.live_record().netns_cookie ||
             !netns::namespace_cookie_of_fd(netns::open_fd(t.holder_ns + "net", O_RDONLY).get()))
           GTEST_SKIP() << "this kernel gives a namespace no cookie";
         H forged = t.live_record();
         t.numbers.emplace_back(std::to_string(*forged.netns_cookie), "<holder-netns-cookie>");
         forged.netns_cookie = *forged.netns_cookie + 1000000;
         t.numbers.emplace_back(std::to_string(*forged.netns_cookie), "<dead-netns-cookie>");
         t.refused_with_record("cookie", forged);
       }},
      {"lock_held_by_nobody",
       "record's holder does not hold the <ID>.lock",
       {"is held by nobody", "not by the record's holder"},
       [](FaultMatrix& t) {
         // The live holder's own record, beside a <ID>.lock that nobody holds.
         std::string link_path = t.fake_holder_dir("unlocked", t.holder_ns + "net", t.record_text);
         write_file(t.tmp / "unlocked/ceph-a.lock", std::to_string(t.holder->pid()) + "\n");
         t.refused({"run", "--netns", link_path});
       }},

      // --- sockets: who serves, what is sent ---------------------------------------
      {"socket_served_by_nobody",
       "socket served by a non-root uid",
       {"runs as uid 65534", "not root"},
       [](FaultMatrix& t) {
         // A server that hands out the holder's own namespace with a well-formed
         // header, but runs as uid 65534: SO_PEERCRED names the uid that called
         // listen(), so only the listening thread changes its (per-thread) euid.
         make_dir(t.tmp / "userserver");
         std::string path = t.tmp / "userserver/ceph-a.net.sock";
         netns::UniqueFd listener = bind_socket(path, false);
         std::thread as_nobody([&] {
           if (::syscall(SYS_setresuid, -1, kNobody, -1) != 0) return;
           (void)::listen(listener.get(), 4);
           (void)::syscall(SYS_setresuid, -1, 0, -1);
         });
         as_nobody.join();
         netns::UniqueFd holder_fd = netns::open_fd(t.holder_ns + "net", O_RDONLY);
         netns::FdHeader header{netns::FdHeader::kVersion, kId,
                                netns::ns_id_of_fd(holder_fd.get(), "holder")};
         std::thread server = answer_once(listener.get(), header, holder_fd.get());
         t.refused({"run", "--socket", path});
         server.join();
       }},
      {"socket_answered_by_nobody",
       "socket listened on by root, answered by uid 65534",
       {"sent the namespace", "runs as uid 65534"},
       [](FaultMatrix& t) {
         // Root called listen() (SO_PEERCRED says root) and handed the socket on:
         // an unprivileged process answers with a namespace of its choosing under
         // the holder's cluster ID. Here a thread of this process that drops to
         // uid 65534 (real and effective, which the credentials the kernel
         // attaches to a message carry) for the send.
         NetnsChild other;
         make_dir(t.tmp / "handed");
         std::string path = t.tmp / "handed/ceph-a.net.sock";
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
         t.refused({"run", "--socket", path});
         server.join();
       }},
      {"socket_answered_by_another_root_process",
       "socket listened on by the record's holder, answered by another root process",
       {"sent the namespace"},
       [](FaultMatrix& t) {
         // The holder listens (SO_PEERCRED names it) and a forked process, root
         // as well, answers: the sender is compared with the record's holder,
         // not only with root. The "holder" is this test process, with a record
         // of its own; the answer is the real holder's namespace with a correct
         // header, so nothing but the sender is wrong.
         make_dir(t.tmp / "forked");
         std::string path = t.tmp / "forked/ceph-a.net.sock";
         H self = t.live_record();
         self.pid = ::getpid();
         self.pid_start_time = netns::pid_start_time(self.pid).value_or(0);
         netns::UniqueFd self_pidfd = netns::make_pidfd(self.pid);
         self.holder_pidfs_ino = netns::pidfs_inode(self_pidfd.get());
         t.numbers.emplace_back(std::to_string(self.pid_start_time), "<test-start-time>");
         if (self.holder_pidfs_ino)
           t.numbers.emplace_back(std::to_string(*self.holder_pidfs_ino), "<test-pidfs-ino>");
         write_file(t.tmp / "forked/ceph-a.holder.json", netns::serialize_record(self));
         netns::UniqueFd listener = bind_socket(path, true);
         netns::UniqueFd holder_fd = netns::open_fd(t.holder_ns + "net", O_RDONLY);
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
         t.numbers.emplace_back(std::to_string(answerer), "<answerer-pid>");
         {
           netns::UniqueFd answerer_pidfd = netns::make_pidfd(answerer);
           if (auto ino = netns::pidfs_inode(answerer_pidfd.get()))
             t.numbers.emplace_back(std::to_string(*ino), "<answerer-pidfs-ino>");
         }
         t.refused({"run", "--socket", path});
         ASSERT_EQ(::waitpid(answerer, nullptr, 0), answerer);
       }},
      {"socket_header_lies",
       "socket header announces another namespace than the descriptor it sends",
       {"announced", "but sent"},
       [](FaultMatrix& t) {
         // A root server whose header announces the holder's namespace but whose
         // descriptor is another one.
         NetnsChild other;
         t.numbers.emplace_back(std::to_string(other.ns_id().ino), "<other-netns-ino>");
         make_dir(t.tmp / "liar");
         std::string path = t.tmp / "liar/ceph-a.net.sock";
         netns::UniqueFd listener = bind_socket(path, true);
         netns::UniqueFd other_fd = netns::open_fd(other.ns_path(), O_RDONLY);
         netns::FdHeader header{netns::FdHeader::kVersion, kId, t.holder->ns_id()};
         std::thread server = answer_once(listener.get(), header, other_fd.get());
         t.refused({"run", "--socket", path});
         server.join();
       }},
      {"peer_refused_by_uid",
       "a peer the holder refuses by uid (uid 65534, --allow-uid 1)",
       {"without sending anything", "--allow-uid"},
       [](FaultMatrix& t) {
         // A real holder that serves only uid 1 (so its socket is 0666): uid 65534
         // connects, and the holder refuses it by SO_PEERCRED and closes.
         make_dir(t.tmp / "picky");
         Holder picky(t.tmp / "picky", kId, {"--socket", "--allow-uid", "1"});
         ASSERT_TRUE(picky.wait_ready()) << picky.err();
         t.numbers.emplace_back(std::to_string(picky.pid()), "<picky-holder-pid>");
         t.refused({"run", "--socket", t.tmp / "picky/ceph-a.net.sock"}, kNobody);
         EXPECT_NE(picky.err().find("refused a connection"), std::string::npos) << picky.err();
       }},

      // --- user-named files that would block --------------------------------------
      {"config_fifo",
       "config is a FIFO",
       {"is a FIFO, not a regular file"},
       [](FaultMatrix& t) {
         ASSERT_EQ(::mkfifo((t.tmp / "fifo.json").c_str(), 0644), 0);
         t.refused({"run", "--cluster-id", kId, "--config", t.tmp / "fifo.json"});
       }},
      {"config_dev_zero",
       "config is /dev/zero",
       {"is a character device, not a regular file"},
       [](FaultMatrix& t) {
         t.refused({"run", "--cluster-id", kId, "--config", "/dev/zero"});
       }},

      // --- every entry point refuses the same way ----------------------------------
      {"map_planted",
       "map through a world-writable holder directory (stub rbd)",
       {"writable by group or others"},
       [](FaultMatrix& t) {
         std::string planted;
         ASSERT_NO_FATAL_FAILURE(t.plant(planted));
         std::vector<std::string> map = {"map", "--netns", planted};
         for (const auto& a : t.stub_map_args()) map.push_back(a);
         t.refused_op(map);
       }},
      {"mount_planted",
       "mount through a world-writable holder directory (stub mount)",
       {"writable by group or others"},
       [](FaultMatrix& t) {
         std::string planted;
         ASSERT_NO_FATAL_FAILURE(t.plant(planted));
         t.refused_op({"mount", "--netns", planted, "--mon", "198.18.0.1:6789", "--id", "admin",
                       "--keyfile", t.tmp / "keyfile", t.tmp / "target"});
       }},
      {"umount_planted",
       "umount through a world-writable holder directory (stub umount)",
       {"writable by group or others"},
       [](FaultMatrix& t) {
         std::string planted;
         ASSERT_NO_FATAL_FAILURE(t.plant(planted));
         t.refused_op({"umount", "--netns", planted, t.tmp / "target"});
       }},
      {"c_abi_planted",
       "C ABI (netns_exec_run) through a world-writable holder directory",
       {"writable by group or others"},
       [](FaultMatrix& t) {
         // The C ABI: the 125 is the result's own exit code.
         std::string planted;
         ASSERT_NO_FATAL_FAILURE(t.plant(planted));
         ::unlink(t.marker().c_str());
         netns_exec_request* req = netns_exec_request_new();
         const std::string script = "echo ran > " + t.marker();
         const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
         netns_exec_request_set_argv(req, argv);
         netns_exec_request_set_netns(req, planted.c_str());
         netns_exec_result* res = netns_exec_run(req);
         const bool ran = t.marker_exists();
         EXPECT_FALSE(ran) << "the command ran through the C ABI";
         EXPECT_EQ(netns_exec_result_outcome(res), NETNS_EXEC_OUTCOME_REFUSED);
         const std::string error = std::string("(C ABI error) ") + netns_exec_result_error(res);
         t.refusal = Refusal{netns_exec_result_exit_code(res), error, ran, false, false, error};
         netns_exec_result_free(res);
         netns_exec_request_free(req);
       }},

      // A holder whose storage interface has not arrived (a pod created while
      // Multus restarts): it holds the lock and publishes nothing, so the plugin
      // finds no namespace to run in rather than one without the storage network.
      {"holder_waiting_for_interface",
       "holder waiting for its storage interface (--require-interface net1, net1 missing)",
       {"ceph-a.net.ns"},
       [](FaultMatrix& t) {
         t.refused_unpublished("waiting", {"--require-interface", "net1"},
                               "not publishing yet: net1 does not exist");
       }},
      // The same with a monitor the holder cannot reach (its namespace has no
      // route at all: the connect fails at once, nothing leaves it).
      {"holder_monitor_unreachable",
       "holder whose monitor is unreachable (--require-reachable 198.18.20.1:3300)",
       {"ceph-a.net.ns"},
       [](FaultMatrix& t) {
         t.refused_unpublished("unreachable", {"--require-reachable", "198.18.20.1:3300"},
                               "not publishing yet: no monitor reachable: ");
       }},

      // --- transparent mode fails closed ---------------------------------------
      // netns-exec installed as rbd and nvme: a session-opening call the shim
      // cannot match to one held cluster is refused, never run in the caller's
      // namespace.
      {"shim_held_id_not_in_config",
       "shim: held list names an ID config.json lacks (Ceph-A for ceph-a)",
       {"\"Ceph-A\"", "did you mean \"ceph-a\"", "$TMP/shim-config.json"},
       [](FaultMatrix& t) {
         t.shim("rbd", {"-m", "198.18.0.1:6789", "map", "rbd/img"},
                {{"NETNS_EXEC_HELD_CLUSTERS", "Ceph-A"}});
       }},
      {"shim_map_names_no_monitors",
       "shim: rbd map naming no monitors, no Ceph config file to name them",
       {"cannot be told", "no-ceph.conf", "NETNS_EXEC_UNMATCHED=own-netns"},
       [](FaultMatrix& t) {
         t.shim("rbd", {"map", "rbd/img"}, {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}});
       }},
      {"shim_map_unknown_monitors",
       "shim: rbd map to monitors no cluster of config.json has",
       {"\"198.18.0.9:6789\"", "$TMP/shim-config.json"},
       [](FaultMatrix& t) {
         t.shim("rbd", {"-m", "198.18.0.9:6789", "map", "rbd/img"},
                {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}});
       }},
      {"shim_map_two_clusters",
       "shim: rbd map to the monitors of two clusters",
       {"ambiguous", "\"ceph-a\"", "\"ceph-b\""},
       [](FaultMatrix& t) {
         t.shim("rbd", {"-m", "198.18.0.1:6789,198.18.0.10:6789", "map", "rbd/img"},
                {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}});
       }},
      {"shim_map_leading_zeros",
       "shim: rbd map, a monitor with leading zeros that glibc and the kernel read apart",
       {"198.18.0.8 (glibc)", "198.18.0.10 (the kernel)"},
       [](FaultMatrix& t) {
         t.shim("rbd", {"-m", "198.18.0.010:6789", "map", "rbd/img"},
                {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}});
       }},
      {"shim_unknown_unmatched_value",
       "shim: rbd map with an unknown NETNS_EXEC_UNMATCHED",
       {"NETNS_EXEC_UNMATCHED=\"yes\""},
       [](FaultMatrix& t) {
         t.shim("rbd", {"-m", "198.18.0.9:6789", "map", "rbd/img"},
                {{"NETNS_EXEC_HELD_CLUSTERS", "ceph-a"}, {"NETNS_EXEC_UNMATCHED", "yes"}});
       }},
      {"shim_nvme_undeclared_target",
       "shim: nvme connect to a target no holder declares",
       {"\"198.18.5.1\"", "NETNS_EXEC_TARGETS"},
       [](FaultMatrix& t) {
         t.shim("nvme", {"connect", "-t", "tcp", "-a", "198.18.5.1", "-s", "4420", "-n", "nqn.x"},
                {{"NETNS_EXEC_TARGETS", "gw-a=198.18.4.0/24"}});
       }},
      {"shim_nvme_target_of_two",
       "shim: nvme connect to a target two holders declare alike",
       {"ambiguous", "\"gw-a\"", "\"gw-b\""},
       [](FaultMatrix& t) {
         t.shim("nvme", {"connect", "-t", "tcp", "-a", "198.18.4.1", "-s", "4420", "-n", "nqn.x"},
                {{"NETNS_EXEC_TARGETS", "gw-a=198.18.4.0/24;gw-b=198.18.4.0/24"}});
       }},
      {"shim_nvme_connect_all",
       "shim: nvme connect-all naming no address (targets from discovery.conf)",
       {"discovery.conf"},
       [](FaultMatrix& t) {
         t.shim("nvme", {"connect-all"}, {{"NETNS_EXEC_TARGETS", "gw-a=198.18.4.0/24"}});
       }},
      // The CLI's --cluster-id takes the same decision.
      {"run_held_id_not_in_config",
       "run --cluster-id with a held list naming an ID config.json lacks",
       {"did you mean \"ceph-a\""},
       [](FaultMatrix& t) {
         t.refused({"run", "--cluster-id", "ceph-a", "--config", t.shim_config()}, std::nullopt,
                   {"env", "NETNS_EXEC_HELD_CLUSTERS=Ceph-A",
                    "NETNS_EXEC_HOLDER_DIR=" + (t.tmp / "shim-holders")});
       }},

      // Holder that dies between resolve and exec: only the library can stop
      // there. Resolve, kill the holder, then run with the resolved namespace.
      {"holder_dies_after_resolve",
       "holder dies between resolve and exec (library: resolve, SIGKILL, run_in)",
       {"exited after the namespace was validated"},
       [](FaultMatrix& t) {
         netns::exec::ResolvedNamespace ns = netns::exec::resolve(
             netns::exec::Source::netns_path(t.link), netns::exec::ResolveOptions{});
         ASSERT_TRUE(ns.record.has_value()) << "the holder's record vouched for the link";
         auto status = t.holder->stop(SIGKILL);
         ASSERT_TRUE(status.has_value());
         netns::spawn::Command cmd;
         cmd.argv = {"sh", "-c", "echo ran > " + t.marker()};
         ::unlink(t.marker().c_str());
         std::string message;
         try {
           auto r = netns::exec::run_in(ns, cmd);
           message = "ran: " + r.result.outcome.describe();
         } catch (const netns::Error& e) {
           message = e.describe();
         }
         const bool ran = t.marker_exists();
         EXPECT_FALSE(ran) << "the command ran after its holder died";
         // The CLI turns this netns::Error into 125, as the table shows.
         t.refusal = Refusal{kRefused, "(netns::Error) " + message, ran, false, false, message};
       }},
  };
}

struct FaultMatrixRefusal : FaultMatrix, ::testing::WithParamInterface<Fault> {};

// A row's namespaces and processes live until its line is made, so that no
// number the line shows is reused (and mistaken for another) meanwhile.
TEST_P(FaultMatrixRefusal, IsRefusedBeforeTheCommandRuns) {
  const Fault& row = GetParam();
  row.steps(*this);
  if (HasFatalFailure() || IsSkipped()) return;
  ASSERT_TRUE(refusal.has_value()) << "the row made no call to refuse";
  const Refusal& r = *refusal;
  EXPECT_FALSE(r.ran) << "the command ran";
  EXPECT_EQ(r.exit_status, kRefused) << r.describe;
  if (r.cli) {
    EXPECT_FALSE(r.stopped) << r.describe;
    EXPECT_EQ(holder_test::line_count(r.err), 1u) << "not one line:\n" << r.err;
  }
  for (const auto& cause : row.causes) {
    const std::string c = in_tmp(cause, tmp.path());
    EXPECT_NE(r.err.find(c), std::string::npos) << "message lacks " << c << ":\n" << r.err;
  }
  std::string message = first_line(r.err);
  const std::string boot = netns::read_boot_id();
  for (size_t at; (at = message.find(boot)) != std::string::npos;)
    message.replace(at, boot.size(), "<boot-id>");
  document(fault_matrix_doc::kRefusals, cells(row), "`" + shown(message) + "`");
}

INSTANTIATE_TEST_SUITE_P(Rows, FaultMatrixRefusal, ::testing::ValuesIn(faults()),
                         [](const ::testing::TestParamInfo<Fault>& row) {
                           return std::string(row.param.name);
                         });

// --- cancellation of map, unmap, mount and umount (the Ceph operations) ----
// Each row is one netns-exec run against the live holder, cancelled at one
// point: SIGTERM (how a caller stops the CLI it started) or --timeout.
// "left" is read from the node afterwards.

// One cancellation: how netns-exec must end, its --json "cancel" word, what
// the node holds afterwards, every event the stand-ins say after the row's
// steps have read theirs, in order ("$TMP": the row's directory), and the
// steps: the stand-ins, then netns-exec started (op) and cancelled.
struct Cancel {
  const char* name;
  const char* when;
  int exit_status;
  const char* cancel;
  const char* left;
  const char* said;
  std::function<void(FaultMatrix&)> steps;
};

void PrintTo(const Cancel& row, std::ostream* os) { *os << row.when; }

std::string cells(const Cancel& row) {
  return std::string(row.when) + " | " + std::to_string(row.exit_status) + " | `" + row.cancel +
         "` | " + row.left;
}

std::vector<Cancel> cancels() {
  return {
      {"map_cancelled_before_start", "map, cancelled before it starts (SIGTERM already pending)",
       125, "not_started", "nothing", "",
       [](FaultMatrix& t) {
         t.stand_in_rbd("map_now; echo /dev/rbd0");
         t.op = t.start_cancel_op(t.cancel_map("20s"), true);
       }},
      {"map_sigterm_before_kernel_step",
       "map, SIGTERM while rbd runs, before its kernel step; rbd ends on its SIGTERM after the "
       "grace",
       137, "nothing_left", "nothing", "term\n",
       [](FaultMatrix& t) {
         t.stand_in_rbd("hang");
         t.op = t.start_cancel_op(t.cancel_map("200ms"), false);
         ASSERT_EQ(t.next_event(), "map-start");
         t.op->kill(SIGTERM);
       }},
      {"map_sigterm_after_kernel_step_finishes",
       "map, SIGTERM after its kernel step; rbd finishes within the grace (prints /dev/rbd0)", 137,
       "undone", "nothing", "unmap /dev/rbd0\n",
       [](FaultMatrix& t) {
         t.stand_in_rbd("map_now; say mapped; release; echo /dev/rbd0");
         t.op = t.start_cancel_op(t.cancel_map("20s"), false);
         ASSERT_EQ(t.next_event(), "map-start");
         ASSERT_EQ(t.next_event(), "mapped");
         t.cancel_and_wait_seen();
         ASSERT_EQ(::write(t.cancel_go.get(), "go\n", 3), 3);
       }},
      {"map_sigterm_after_kernel_step_hangs",
       "map, SIGTERM after its kernel step; rbd hangs until its SIGTERM after the grace", 137,
       "undone", "nothing", "term\nunmap /dev/rbd0\n",
       [](FaultMatrix& t) {
         t.stand_in_rbd("map_now; say mapped; hang");
         t.op = t.start_cancel_op(t.cancel_map("200ms"), false);
         ASSERT_EQ(t.next_event(), "map-start");
         ASSERT_EQ(t.next_event(), "mapped");
         t.op->kill(SIGTERM);
       }},
      {"map_timeout_after_kernel_step",
       "map, --timeout after its kernel step; rbd hangs until its SIGTERM after the grace", 124,
       "undone", "nothing", "map-start\nmapped\nterm\nunmap /dev/rbd0\n",
       [](FaultMatrix& t) {
         // The same rbd, stopped by the timeout instead of a signal.
         t.stand_in_rbd("map_now; say mapped; hang");
         t.op = t.start_cancel_op(t.cancel_map("1s", {"--timeout", "1s"}), false);
       }},
      {"unmap_cancelled_before_start",
       "unmap, cancelled before it starts (SIGTERM already pending)", 125, "not_started",
       "/dev/rbd0 mapped", "",
       [](FaultMatrix& t) {
         t.mapped_device();
         t.stand_in_rbd("exit 1", "release; rm -rf $D");
         t.op = t.start_cancel_op(t.cancel_unmap(), true);
       }},
      {"unmap_sigterm_finishes",
       "unmap, SIGTERM while rbd unmap runs; it finishes within the grace", 0, "completed",
       "nothing", "",
       [](FaultMatrix& t) {
         t.mapped_device();
         t.stand_in_rbd("exit 1", "release; rm -rf $D");
         t.op = t.start_cancel_op(t.cancel_unmap(), false);
         ASSERT_EQ(t.next_event(), "unmap /dev/rbd0");
         t.cancel_and_wait_seen();
         ASSERT_EQ(::write(t.cancel_go.get(), "go\n", 3), 3);
       }},
      {"mount_cancelled_before_start",
       "mount, cancelled before it starts (SIGTERM already pending)", 125, "not_started", "nothing",
       "",
       [](FaultMatrix& t) {
         t.stand_in("mount", "say mount-start; mount_now");
         t.op = t.start_cancel_op(t.cancel_mount("20s"), true);
       }},
      {"mount_sigterm_after_kernel_step",
       "mount, SIGTERM after its kernel step; mount hangs until its SIGTERM after the grace", 137,
       "undone", "nothing", "term\numount $TMP/cancel/mnt\n",
       [](FaultMatrix& t) {
         t.stand_in("mount", "say mount-start; mount_now; say mounted; hang");
         t.op = t.start_cancel_op(t.cancel_mount("200ms"), false);
         ASSERT_EQ(t.next_event(), "mount-start");
         ASSERT_EQ(t.next_event(), "mounted");
         t.op->kill(SIGTERM);
       }},
      {"mount_timeout_before_kernel_step",
       "mount, --timeout before its kernel step; mount ends on its SIGTERM after the grace", 124,
       "nothing_left", "nothing", "mount-start\nterm\n",
       [](FaultMatrix& t) {
         t.stand_in("mount", "say mount-start; hang");
         t.op = t.start_cancel_op(t.cancel_mount("1s", {"--timeout", "1s"}), false);
       }},
      {"umount_sigterm_finishes", "umount, SIGTERM while umount runs; it finishes within the grace",
       0, "completed", "nothing", "",
       [](FaultMatrix& t) {
         t.stand_in("mount", "mount_now");
         {
           // The mount for the umount row, through netns-exec like the others.
           auto mount = t.start_cancel_op(t.cancel_mount("20s"), false);
           std::optional<int> status = mount->wait(30s);
           ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
               << mount->out() << mount->err();
         }
         t.stand_in("umount", "say \"umount $1\"; release; umount_now");
         t.op = t.start_cancel_op(t.cancel_umount(), false);
         ASSERT_EQ(t.next_event(), "umount " + t.cancel_target());
         t.cancel_and_wait_seen();
         ASSERT_EQ(::write(t.cancel_go.get(), "go\n", 3), 3);
       }},
  };
}

struct FaultMatrixCancel : FaultMatrix, ::testing::WithParamInterface<Cancel> {
  void SetUp() override {
    FaultMatrix::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_NO_FATAL_FAILURE(make_cancel_node());
    stand_in("umount", "say \"umount $1\"; umount_now");
  }
};

// netns-exec has run to its end; its exit status, the --json "cancel" word
// and what is left must be the row's, and the stand-ins must have said the
// row's events.
TEST_P(FaultMatrixCancel, EndsAsTheRowSays) {
  const Cancel& row = GetParam();
  row.steps(*this);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(op) << "the row started no netns-exec";
  std::optional<int> status = op->wait(30s);
  ASSERT_TRUE(status.has_value()) << "netns-exec did not end";
  ASSERT_TRUE(WIFEXITED(*status)) << "wait status " << *status << "\n" << op->err();
  ASSERT_NE(WEXITSTATUS(*status), 99) << "the case's mount namespace could not be set up";
  std::string word;
  try {
    word = nlohmann::json::parse(op->out()).at("cancel").get<std::string>();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "no --json outcome: " << e.what() << "\n" << op->out() << op->err();
  }
  std::string now_left = cancel_leftover();
  EXPECT_EQ(WEXITSTATUS(*status), row.exit_status) << op->out() << op->err();
  EXPECT_EQ(word, row.cancel) << op->out();
  EXPECT_EQ(now_left, row.left);
  EXPECT_EQ(drain_events(), in_tmp(row.said, tmp.path()));
  std::string message = first_line(op->err());
  if (message.empty()) message = "(none: it succeeded)";
  document(fault_matrix_doc::kCancels, cells(row), "`" + shown(message) + "`");
}

INSTANTIATE_TEST_SUITE_P(Rows, FaultMatrixCancel, ::testing::ValuesIn(cancels()),
                         [](const ::testing::TestParamInfo<Cancel>& row) {
                           return std::string(row.param.name);
                         });

// --- the node's mappings and its fence ------------------------------------
// A holder whose namespace has a storage address (198.18.31.50 on net1), a
// namespace standing in for the node's own (198.18.32.1), and a stand-in
// krbd sysfs / ceph debugfs / mountinfo tree per row (this machine's kernel
// has neither client; the kernel suite's kernel.orphan is the real one).

struct FaultMatrixNode;

// One answer: the exit status, what its line must say, and the steps that
// ask (doctor, fence_info or check) after any change to the node.
struct NodeCase {
  const char* name;
  const char* what;
  int exit_status;
  const char* expect;
  std::function<void(FaultMatrixNode&)> steps;
};

void PrintTo(const NodeCase& row, std::ostream* os) { *os << row.what; }

std::string cells(const NodeCase& row) {
  return std::string(row.what) + " | " + std::to_string(row.exit_status);
}

struct FaultMatrixNode : FaultMatrix, ::testing::WithParamInterface<NodeCase> {
  void SetUp() override {
    FaultMatrix::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    node_ns = std::make_unique<NetnsChild>();
    ip_in(node_ns->ns_path(), {"link", "add", "eth9", "type", "veth", "peer", "name", "eth9p"});
    ip_in(node_ns->ns_path(), {"addr", "add", "198.18.32.1/24", "dev", "eth9"});
    make_dir(dir);
    // As the chart starts it: it publishes once net1 is up with its address.
    served =
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
    probe = std::make_unique<Holder>(tmp / "probe", kId);
    ASSERT_TRUE(probe->wait_ready()) << probe->err();
    numbers.emplace_back(std::to_string(probe->pid()), "<probe-holder-pid>");
    ip_in(probe->ns_path(), {"link", "set", "lo", "up"});
    ip_in(probe->ns_path(), {"link", "add", "net2", "type", "veth", "peer", "name", "net2p"});
    ip_in(probe->ns_path(), {"addr", "add", "198.18.33.50/24", "dev", "net2"});
    ip_in(probe->ns_path(), {"link", "set", "net2p", "up"});
    ip_in(probe->ns_path(), {"link", "set", "net2", "up"});
  }

  // A tree with one rbd device (client `addr`) or one ceph mount.
  std::string tree(const std::string& name, const std::string& image, const std::string& addr,
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
  }
  // netns-exec doctor on `root`: the exit status, and its line for the
  // mapping (`object`), which must say the row's `expect`.
  void doctor(const std::string& root, const std::string& object) {
    const NodeCase& row = GetParam();
    auto r = netns::test::run_command(
        {NETNS_EXEC_BIN, "doctor", "--netns", tmp / "probe/ceph-a.net.ns", "--holder-dir", dir,
         "--node-netns", node_ns->ns_path(), "--sys-bus-rbd", root + "/rbd", "--ceph-debugfs",
         root + "/ceph", "--mountinfo", root + "/mountinfo"},
        holder_test::within(30s));
    std::string line;
    std::istringstream lines(r.out);
    for (std::string l; line.empty() && std::getline(lines, l);)
      if ((l.rfind("PASS", 0) == 0 || l.rfind("FAIL", 0) == 0) &&
          l.find(object) != std::string::npos)
        line = l;
    EXPECT_EQ(r.exit_code, row.exit_status) << r.describe();
    EXPECT_NE(line.find(row.expect), std::string::npos)
        << "no line for " << object << " saying " << row.expect << ":\n"
        << r.out;
    seen = Seen{r.exit_code, line};
  }
  void fence_info(const std::string& holders) {
    const NodeCase& row = GetParam();
    auto r = netns::test::run_command(
        {NETNS_EXEC_BIN, "fence-info", "--holder-dir", holders, "--node-netns", node_ns->ns_path()},
        holder_test::within(20s));
    std::string line = r.exit_code == 0 ? std::string() : first_line(r.err);
    std::istringstream lines(r.out);
    for (std::string l; line.empty() && std::getline(lines, l);)
      if (l.rfind("fence:", 0) == 0) line = l;
    EXPECT_EQ(r.exit_code, row.exit_status) << r.describe();
    EXPECT_NE(line.find(row.expect), std::string::npos) << r.describe();
    seen = Seen{r.exit_code, line};
  }
  // The readiness probe as the chart runs it (netns-holder check, inside
  // the holder's namespace).
  void check() {
    const NodeCase& row = GetParam();
    auto r = netns::test::run_command(
        {"nsenter", "--net=" + served->ns_path(), "--", holder_test::kHolder, "check",
         "--cluster-id", kId, "--dir", dir, "--require-interface", "net1"},
        holder_test::within(10s));
    std::string line;
    std::istringstream lines(r.out + r.err);
    for (std::string l; line.empty() && std::getline(lines, l);)
      if (l.find(row.expect) != std::string::npos) line = l;
    EXPECT_EQ(r.exit_code, row.exit_status) << r.describe();
    EXPECT_FALSE(line.empty()) << "nothing says " << row.expect << ":\n" << r.describe();
    seen = Seen{r.exit_code, line};
  }

  std::unique_ptr<NetnsChild> node_ns;
  const std::string dir = tmp / "served";
  const std::string record = dir + "/" + kId + ".holder.json";
  std::unique_ptr<Holder> served;
  std::unique_ptr<Holder> probe;
  std::optional<Seen> seen;
};

std::vector<NodeCase> node_cases() {
  return {
      {"doctor_served_rbd", "doctor: rbd device whose client address is a live holder's", 0,
       "served by holder",
       [](FaultMatrixNode& t) {
         t.doctor(t.tree("served", "served", "198.18.31.50:0/1234", false), "rbd /dev/rbd0");
       }},
      {"doctor_stranded_rbd",
       "doctor: rbd device whose client address no live holder has (its sandbox replaced)", 1,
       "no live holder (and not the node) has its client address",
       [](FaultMatrixNode& t) {
         t.doctor(t.tree("stranded", "stranded", "198.18.31.77:0/999", false), "rbd /dev/rbd0");
       }},
      {"doctor_stranded_cephfs", "doctor: ceph mount whose client address no live holder has", 1,
       "its namespace is gone (then this mapping hangs) or its holder is down",
       [](FaultMatrixNode& t) {
         t.doctor(t.tree("cephfs", "", "198.18.31.77:0/555", true), "cephfs /mnt/pv1");
       }},
      {"fence_node_and_holder", "fence-info: the node and a live holder", 0,
       "fence: 198.18.31.50/32 198.18.32.1/32", [](FaultMatrixNode& t) { t.fence_info(t.dir); }},
      {"fence_record_too_old", "fence-info: a holder's record too old to name its addresses", 1,
       "record version 1 does not publish client addresses",
       [](FaultMatrixNode& t) {
         // A version-1 record (a holder too old to publish its addresses).
         const std::string old = t.tmp / "old-holders";
         make_dir(old);
         write_file(
             old + "/" + kId + ".holder.json",
             netns::read_file(NETNS_SOURCE_DIR "/test/fixtures/compat/v1/ceph-a.holder.json"));
         t.fence_info(old);
       }},
      {"check_net1_up", "holder check --require-interface net1, net1 up with its address", 0,
       "required interfaces ready", [](FaultMatrixNode& t) { t.check(); }},
      {"check_net1_down",
       "holder check --require-interface net1, net1 down after the holder published", 1,
       "storage network not ready: net1 is down",
       [](FaultMatrixNode& t) {
         // Not ready once net1 is down; the holder keeps its files, which the
         // mappings in it still need.
         ip_in(t.served->ns_path(), {"link", "set", "net1", "down"});
         EXPECT_TRUE(netns::test::wait_until(
             [&] {
               return t.served->err().find("storage network lost: net1 is down") !=
                      std::string::npos;
             },
             10s))
             << t.served->err();
         t.check();
         EXPECT_TRUE(holder_test::exists(t.record)) << "the holder keeps its files";
       }},
      // The controls: without the holder the device it served is stranded too,
      // and the fence is the node's own address alone.
      {"doctor_served_rbd_holder_gone", "doctor: the served rbd device, once its holder is gone", 1,
       "its namespace is gone (then this mapping hangs) or its holder is down",
       [](FaultMatrixNode& t) {
         ASSERT_TRUE(t.served->stop(SIGTERM).has_value());
         t.doctor(t.tree("unserved", "served", "198.18.31.50:0/1234", false), "rbd /dev/rbd0");
       }},
      {"fence_node_holder_gone", "fence-info: the node, its holder gone", 0,
       "fence: 198.18.32.1/32",
       [](FaultMatrixNode& t) {
         ASSERT_TRUE(t.served->stop(SIGTERM).has_value());
         t.fence_info(t.dir);
       }},
  };
}

TEST_P(FaultMatrixNode, AnswersAsTheRowSays) {
  GetParam().steps(*this);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(seen.has_value()) << "the row asked nothing";
  document(fault_matrix_doc::kNode, cells(GetParam()), "`" + shown(seen->line) + "`");
}

INSTANTIATE_TEST_SUITE_P(Rows, FaultMatrixNode, ::testing::ValuesIn(node_cases()),
                         [](const ::testing::TestParamInfo<NodeCase>& row) {
                           return std::string(row.param.name);
                         });

// --- the document ---------------------------------------------------------

fault_matrix_doc::Cells table_cells() {
  fault_matrix_doc::Cells tables;
  for (const Fault& row : faults()) tables[fault_matrix_doc::kRefusals].push_back(cells(row));
  for (const Cancel& row : cancels()) tables[fault_matrix_doc::kCancels].push_back(cells(row));
  for (const NodeCase& row : node_cases()) tables[fault_matrix_doc::kNode].push_back(cells(row));
  return tables;
}

// The prose, and every row of the tables in their order, numbered; each
// row's last cell is its own test's (a row is found by its cells).
TEST(FaultMatrixDoc, ListsEveryRowOfTheTablesInOrder) {
  const fault_matrix_doc::Cells tables = table_cells();
  for (const auto& table : tables)
    for (size_t i = 0; i < table.size(); ++i)
      for (size_t j = i + 1; j < table.size(); ++j)
        EXPECT_NE(table[i], table[j]) << "two rows the document cannot tell apart";
  if (fault_matrix_doc::updating()) {
    fault_matrix_doc::rewrite(tables);
    return;
  }
  std::string committed;
  try {
    committed = netns::read_file(fault_matrix_doc::kPath);
  } catch (const netns::Error& e) {
    FAIL() << e.describe() << "\nGenerate it: " << fault_matrix_doc::kRegenerate;
  }
  EXPECT_EQ(committed, fault_matrix_doc::render(tables, committed))
      << fault_matrix_doc::kPath
      << " is out of date; regenerate: " << fault_matrix_doc::kRegenerate;
}

}  // namespace
