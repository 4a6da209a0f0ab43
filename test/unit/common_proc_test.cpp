#include <gtest/gtest.h>
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
