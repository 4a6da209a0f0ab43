#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns/error.hpp"
#include "netns/proc.hpp"

namespace {
// A stat line with fields 3..52; field 22 is "987654".
std::string stat_line(const std::string& comm) {
  std::string line = "1234 (" + comm + ") S";
  for (int field = 4; field <= 52; ++field)
    line += " " + (field == 22 ? std::string("987654") : std::to_string(field));
  return line + "\n";
}
}  // namespace

TEST(ProcStat, FindsField22) {
  EXPECT_EQ(netns::parse_stat_start_time(stat_line("sleep")), 987654u);
}

TEST(ProcStat, CommandNamesWithSpacesAndParentheses) {
  EXPECT_EQ(netns::parse_stat_start_time(stat_line("a) (b")), 987654u);
  EXPECT_EQ(netns::parse_stat_start_time(
                stat_line(") ) 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20")),
            987654u);
  EXPECT_EQ(netns::parse_stat_start_time(stat_line("")), 987654u);
}

TEST(ProcStat, MalformedLinesAreErrors) {
  EXPECT_THROW(netns::parse_stat_start_time("1234 sleep S 1 2"), netns::Error);
  EXPECT_THROW(netns::parse_stat_start_time("1234 (sleep) S 1 2 3"), netns::Error);
  std::string line = stat_line("x");
  line.replace(line.find("987654"), 6, "98x654");
  EXPECT_THROW(netns::parse_stat_start_time(line), netns::Error);
}

TEST(ProcStat, LiveProcessesAndGoneOnes) {
  auto self = netns::pid_start_time(::getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_GT(*self, 0u);
  EXPECT_EQ(netns::pid_start_time(::getpid()), self);         // stable
  EXPECT_EQ(netns::pid_start_time(0x3ffffff), std::nullopt);  // above pid_max
  EXPECT_EQ(netns::read_boot_id().size(), 36u);
}

TEST(ProcStat, ReadsTheCommandStateAndParent) {
  netns::ProcStat s = netns::parse_stat("1234 (a) (b) Z 77" + stat_line("x").substr(12));
  EXPECT_EQ(s.comm, "a) (b");
  EXPECT_EQ(s.state, 'Z');
  EXPECT_EQ(s.ppid, 77);
  EXPECT_EQ(s.start_time, 987654u);
  EXPECT_THROW(netns::parse_stat("1234 (x) SS" + stat_line("x").substr(10)), netns::Error);

  auto self = netns::read_stat(::getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_EQ(self->ppid, ::getppid());
  EXPECT_EQ(self->start_time, netns::pid_start_time(::getpid()));
  EXPECT_EQ(netns::read_stat(0x3ffffff), std::nullopt);
}

TEST(ProcChildren, ListsALiveChildAndForgetsAReapedOne) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  EXPECT_EQ(netns::own_children().count(child), 1u);
  auto stat = netns::read_stat(child);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->ppid, ::getpid());
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(netns::own_children().count(child), 0u);
}
