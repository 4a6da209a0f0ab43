// The holder impostor: a holder dies, and a root process is given its pid
// (clone3 with set_tid, as a pid wrap-around would) in a namespace of its
// own. The record left behind still names the dead holder; a record written
// by a holder on this machine also names what the kernel never reuses (the
// pidfs inode, the namespace cookie), and the <ID>.lock it held is free.
//
// The pid is reproduced exactly. Its start tick and the namespace inode can
// only come back by coincidence (a holder that dies within its first 10 ms
// tick, an inode number freed and handed out again), so the test writes the
// impostor's into the record, as that coincidence would leave it, and keeps
// the dead holder's never-reused identities. Every case asserts exit 125 and
// that the command did not run; the control shows the same files work while
// the real holder lives.
#include <fcntl.h>
#include <linux/sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "holder_helpers.hpp"
#include "netns/atomic_file.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/kernel_ids.hpp"
#include "netns/proc.hpp"

namespace {

using namespace std::chrono_literals;
using holder_test::Holder;
using netns::test::RunResult;
using netns::test::TempDir;

constexpr const char* kId = "ceph-a";

// A process with a chosen pid, in a new network namespace, until destroyed.
class Impostor {
 public:
  explicit Impostor(pid_t pid) {
    netns::Pipe ready = netns::make_pipe();
    netns::Pipe release = netns::make_pipe();
    clone_args args{};
    pid_t tid = pid;
    args.set_tid = reinterpret_cast<uintptr_t>(&tid);
    args.set_tid_size = 1;
    args.exit_signal = SIGCHLD;
    long got = ::syscall(SYS_clone3, &args, sizeof args);
    if (got < 0) throw netns::Error::sys("clone3(set_tid)", std::to_string(pid), errno);
    if (got == 0) {
      // Only system calls from here to _exit.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      char status = ::unshare(CLONE_NEWNET) == 0 ? 'R' : 'E';
      (void)!::write(ready.write.get(), &status, 1);
      char c;
      (void)!::read(release.read.get(), &c, 1);
      ::_exit(0);
    }
    pid_ = static_cast<pid_t>(got);
    ready.write.reset();
    release.read.reset();
    char status = 0;
    if (::read(ready.read.get(), &status, 1) != 1 || status != 'R') {
      stop();
      throw std::runtime_error("impostor: unshare(CLONE_NEWNET) failed");
    }
    release_ = std::move(release.write);
  }
  ~Impostor() { stop(); }
  Impostor(const Impostor&) = delete;
  Impostor& operator=(const Impostor&) = delete;
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  void stop() {
    release_.reset();
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  pid_t pid_ = -1;
  netns::UniqueFd release_;
};

class HolderImpostor : public ::testing::Test {
 protected:
  void SetUp() override {
    NETNS_REQUIRE_ROOT();
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  }

  std::string marker() const { return tmp / "ran"; }
  bool ran() const { return holder_test::exists(marker()); }

  RunResult exec(std::vector<std::string> args) {
    ::unlink(marker().c_str());
    args.insert(args.begin(), NETNS_EXEC_BIN);
    args.insert(args.end(), {"--", "sh", "-c", "echo ran > " + marker()});
    return netns::test::run_command(args, holder_test::within(20s));
  }

  void expect_refused(const std::vector<std::string>& args, const std::string& cause) {
    RunResult r = exec(args);
    EXPECT_FALSE(ran()) << "the command ran in the impostor's namespace: " << r.describe();
    EXPECT_EQ(r.exit_code, 125) << r.describe();
    EXPECT_NE(r.err.find(cause), std::string::npos) << "lacks " << cause << ":\n" << r.err;
  }

  void write_record(const netns::HolderRecord& r) {
    netns::UniqueFd d = netns::open_fd(dir, O_RDONLY | O_DIRECTORY);
    netns::write_file_atomic(d.get(), std::string(kId) + ".holder.json", netns::serialize_record(r),
                             0644, dir);
  }

  TempDir tmp;
  const std::string dir = tmp / "holder";
  const std::string link = dir + "/" + kId + ".net.ns";
};

TEST_F(HolderImpostor, AProcessGivenTheDeadHoldersPidIsRefused) {
  netns::HolderRecord dead;
  {
    Holder holder(dir, kId);
    ASSERT_TRUE(holder.wait_ready()) << holder.err();
    // Control: the real holder's link runs the command.
    RunResult r = exec({"run", "--netns", link});
    ASSERT_TRUE(r.ok()) << r.describe();
    ASSERT_TRUE(ran());
    dead = netns::parse_record(netns::read_file(dir + "/" + kId + ".holder.json"), "record");
    // Killed: no chance to clean up, as in a crash; the files stay behind.
    holder.stop(SIGKILL);
  }
  ASSERT_TRUE(holder_test::exists(link));

  Impostor impostor(dead.pid);
  ASSERT_EQ(impostor.pid(), dead.pid);
  const std::string impostor_ns = "/proc/" + std::to_string(impostor.pid()) + "/ns/net";
  netns::HolderRecord coincidence = dead;
  coincidence.pid_start_time = netns::pid_start_time(impostor.pid()).value();
  coincidence.netns = netns::test::ns_id_of_path(impostor_ns);

  // What a holder on this kernel wrote: the pidfs inode tells the processes apart.
  if (dead.holder_pidfs_ino) {
    write_record(coincidence);
    expect_refused({"run", "--netns", link}, "is not the process that wrote the record");
    expect_refused({"--net=" + link}, "is not the process that wrote the record");
  } else {
    std::printf("this kernel has no pidfs: the pidfs case is not reproducible here\n");
  }

  // A holder whose kernel had no pidfs (before 6.9) still names its
  // namespace's cookie, which this kernel can read from the descriptor.
  netns::UniqueFd opened = netns::open_fd(impostor_ns, O_RDONLY);
  if (dead.netns_cookie && netns::namespace_cookie_of_fd(opened.get())) {
    netns::HolderRecord no_pidfs = coincidence;
    no_pidfs.holder_pidfs_ino.reset();
    write_record(no_pidfs);
    expect_refused({"run", "--netns", link}, "another namespace that got the same inode number");
  } else {
    std::printf("this kernel has no NS_GET_ID: the cookie case is not reproducible here\n");
  }

  // Neither identity (a version-1 record, or a kernel with neither, like
  // Debian's 6.1): the lock the dead holder held is free, and the impostor
  // does not hold it.
  netns::HolderRecord bare = coincidence;
  bare.holder_pidfs_ino.reset();
  bare.netns_cookie.reset();
  write_record(bare);
  expect_refused({"run", "--netns", link}, "is held by nobody");
  bare.version = 1;
  write_record(bare);
  expect_refused({"run", "--netns", link}, "is held by nobody");
}

// doctor names each never-reused check and says whether it ran on this
// kernel; with a live holder every one that ran passes.
TEST_F(HolderImpostor, DoctorSaysWhichIdentityChecksRan) {
  Holder holder(dir, kId);
  ASSERT_TRUE(holder.wait_ready()) << holder.err();
  RunResult r = netns::test::run_command({NETNS_EXEC_BIN, "doctor", "--netns", link},
                                         holder_test::within(20s));
  // 0, or 1 for a check inside the namespace (its lo is down), never 125.
  ASSERT_FALSE(r.signaled || r.timed_out) << r.describe();
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.describe();
  netns::UniqueFd self = netns::make_pidfd(::getpid());
  const bool pidfs = netns::pidfs_inode(self.get()).has_value();
  netns::UniqueFd ns = netns::open_fd(holder.ns_path(), O_RDONLY);
  const bool ns_id = netns::namespace_cookie_of_fd(ns.get()).has_value();
  auto line = [&](const std::string& check) {
    size_t at = r.out.find(check);
    if (at == std::string::npos) return std::string();
    size_t begin = r.out.rfind('\n', at);
    begin = begin == std::string::npos ? 0 : begin + 1;
    return r.out.substr(begin, r.out.find('\n', at) - begin);
  };
  const std::string unique = line("holder is the record's process");
  const std::string cookie = line("namespace ID matches");
  const std::string lock = line("lock held by the holder");
  ASSERT_FALSE(unique.empty()) << r.out;
  ASSERT_FALSE(cookie.empty()) << r.out;
  ASSERT_FALSE(lock.empty()) << r.out;
  EXPECT_EQ(unique.find("not checked") == std::string::npos, pidfs) << unique;
  EXPECT_EQ(cookie.find("not checked") == std::string::npos, ns_id) << cookie;
  EXPECT_NE(lock.find("held by pid " + std::to_string(holder.pid())), std::string::npos) << lock;
}

}  // namespace
