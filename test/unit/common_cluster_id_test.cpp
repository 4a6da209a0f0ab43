#include <gtest/gtest.h>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"

using netns::cluster_id_problem;

TEST(ClusterId, AcceptsTheDocumentedAlphabet) {
  for (const char* id : {"a", "rook-ceph", "ceph_1.prod", "A.B-C_d", "0", "..a", "a..", "x-"}) {
    EXPECT_EQ(cluster_id_problem(id), std::nullopt) << id;
  }
  EXPECT_EQ(cluster_id_problem(std::string(64, 'x')), std::nullopt);
}

TEST(ClusterId, RejectsEachRuleWithTheReason) {
  struct Case {
    std::string id;
    std::string reason_part;
  };
  const Case cases[] = {
      {"", "empty"},
      {".", "directory reference"},
      {"..", "directory reference"},
      {"a/b", "character 2"},
      {"../etc", "character 3"},
      {"-rf", "starts with '-'"},
      {std::string(65, 'x'), "65 characters"},
      {"a\nb", "\\n"},
      {std::string("a\x01", 2), "\\x01"},
      {"caf\xc3\xa9", "\\xc3"},
      {"a b", "character 2"},
      {std::string("a\0b", 3), "\\x00"},
  };
  for (const auto& c : cases) {
    auto problem = cluster_id_problem(c.id);
    ASSERT_TRUE(problem.has_value()) << netns::quote(c.id);
    EXPECT_NE(problem->find(c.reason_part), std::string::npos) << *problem;
  }
}

TEST(ClusterId, ValidateNamesTheValueAndTheRule) {
  try {
    netns::validate_cluster_id("a/b");
    FAIL() << "accepted a/b";
  } catch (const netns::Error& e) {
    EXPECT_EQ(e.code(), netns::Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("\"a/b\""), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("1-64 characters"), std::string::npos);
  }
}

TEST(ClusterId, FileNamesFollowTheSpec) {
  auto names = netns::holder_file_names("ceph-a");
  EXPECT_EQ(names.ns_link, "ceph-a.net.ns");
  EXPECT_EQ(names.record, "ceph-a.holder.json");
  EXPECT_EQ(names.socket, "ceph-a.net.sock");
  EXPECT_EQ(names.lock, "ceph-a.lock");
  EXPECT_THROW(netns::holder_file_names(".."), netns::Error);
}
