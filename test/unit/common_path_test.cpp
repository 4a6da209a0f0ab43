#include <gtest/gtest.h>

#include "netns/path.hpp"

using netns::join_path;
using netns::split_path;
using Parts = std::pair<std::string, std::string>;

TEST(PathText, SplitsTheDirectoryFromTheLastComponent) {
  EXPECT_EQ(split_path("/run/netns/ceph-a.holder.json"), Parts("/run/netns", "ceph-a.holder.json"));
  EXPECT_EQ(split_path("/a/b/"), Parts("/a", "b"));
  EXPECT_EQ(split_path("/b"), Parts("/", "b"));
  EXPECT_EQ(split_path("b"), Parts(".", "b"));
  EXPECT_EQ(split_path("a/b"), Parts("a", "b"));
  EXPECT_EQ(split_path("/"), Parts("/", ""));
}

TEST(PathText, JoinsWithOneSlash) {
  EXPECT_EQ(join_path("/run", "x"), "/run/x");
  EXPECT_EQ(join_path("/", "x"), "/x");
  EXPECT_EQ(join_path("/run/", "x"), "/run/x");
  const auto [dir, name] = split_path("/run/netns/x.sock");
  EXPECT_EQ(join_path(dir, name), "/run/netns/x.sock");
}
