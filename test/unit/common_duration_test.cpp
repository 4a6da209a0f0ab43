#include <gtest/gtest.h>

#include "netns/duration.hpp"
#include "netns/error.hpp"

using namespace std::chrono;
using netns::parse_duration;

TEST(Duration, GoStyleUnits) {
  EXPECT_EQ(parse_duration("300ms"), milliseconds(300));
  EXPECT_EQ(parse_duration("10s"), seconds(10));
  EXPECT_EQ(parse_duration("2m"), minutes(2));
  EXPECT_EQ(parse_duration("1h30m"), minutes(90));
  EXPECT_EQ(parse_duration("1.5s"), milliseconds(1500));
  EXPECT_EQ(parse_duration(".5s"), milliseconds(500));
  EXPECT_EQ(parse_duration("0"), nanoseconds(0));
  EXPECT_EQ(parse_duration("250us"), microseconds(250));
  EXPECT_EQ(parse_duration("250\xc2\xb5s"), microseconds(250));
  EXPECT_EQ(parse_duration("7ns"), nanoseconds(7));
  EXPECT_EQ(parse_duration("1m0.5s"), milliseconds(60500));
}

TEST(Duration, RejectsWithTheValueAndTheForm) {
  for (const char* bad : {"", "10", "-1s", "1x", "s", "1.s.", "1h-5m", "10 s", "99999999999h"}) {
    try {
      parse_duration(bad, "--timeout");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const netns::Error& e) {
      EXPECT_NE(std::string(e.what()).find("--timeout"), std::string::npos) << e.what();
      EXPECT_NE(e.hint().find("300ms"), std::string::npos);
    }
  }
}

TEST(Duration, Formats) {
  EXPECT_EQ(netns::format_duration(milliseconds(250)), "250ms");
  EXPECT_EQ(netns::format_duration(seconds(90)), "1m30s");
  EXPECT_EQ(netns::format_duration(milliseconds(1500)), "1.500s");
}
