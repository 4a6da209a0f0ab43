#include <gtest/gtest.h>

#include "netns/error.hpp"
#include "netns/flat_json.hpp"
#include "netns/holder_record.hpp"

namespace {

netns::HolderRecord sample() {
  netns::HolderRecord r;
  r.cluster_id = "ceph-a";
  r.pid = 4242;
  r.pid_start_time = 123456789;
  r.netns = {4, 4026532000};
  r.pidns_ino = netns::kInitialPidNsIno;
  r.boot_id = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  r.created_unix = 1764400000;
  r.socket = "ceph-a.net.sock";
  r.holder_pidfs_ino = 17010;
  r.netns_cookie = 4097;
  return r;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

netns::Errc parse_error(const std::string& text, std::string* message = nullptr) {
  try {
    netns::parse_record(text, "/dir/ceph-a.holder.json");
  } catch (const netns::Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "accepted: " << text;
  return netns::Errc::system;
}

}  // namespace

TEST(HolderRecord, RoundTrips) {
  auto r = sample();
  EXPECT_EQ(netns::parse_record(netns::serialize_record(r), "x"), r);
  r.socket.reset();
  std::string text = netns::serialize_record(r);
  EXPECT_NE(text.find("\"socket\": null"), std::string::npos) << text;
  EXPECT_EQ(netns::parse_record(text, "x"), r);
  // Version 2's identities are null where the holder's kernel had none.
  r.holder_pidfs_ino.reset();
  r.netns_cookie.reset();
  text = netns::serialize_record(r);
  EXPECT_NE(text.find("\"holder_pidfs_ino\": null"), std::string::npos) << text;
  EXPECT_NE(text.find("\"netns_cookie\": null"), std::string::npos) << text;
  EXPECT_EQ(netns::parse_record(text, "x"), r);
}

TEST(HolderRecord, VersionTwoRequiresItsIdentities) {
  std::string good = netns::serialize_record(sample());
  EXPECT_NE(good.find("\"version\": 2"), std::string::npos) << good;
  std::string msg;
  EXPECT_EQ(parse_error(replace(good, ",\n  \"netns_cookie\": 4097", ""), &msg),
            netns::Errc::invalid_argument);
  EXPECT_NE(msg.find("\"netns_cookie\" is missing"), std::string::npos) << msg;
  EXPECT_EQ(parse_error(replace(good, "\"holder_pidfs_ino\": 17010", "\"holder_pidfs_ino\": 0")),
            netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error(replace(good, "\"netns_cookie\": 4097", "\"netns_cookie\": \"4097\"")),
            netns::Errc::invalid_argument);
}

TEST(HolderRecord, RejectsAFutureVersionByName) {
  std::string msg;
  auto text = replace(netns::serialize_record(sample()), "\"version\": 2", "\"version\": 3");
  EXPECT_EQ(parse_error(text, &msg), netns::Errc::unsupported);
  EXPECT_NE(msg.find("version 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/dir/ceph-a.holder.json"), std::string::npos) << msg;
  // A newer version with a new field still reports the version, not the field.
  text = replace(text, "\"socket\"", "\"new_field\": 1, \"socket\"");
  EXPECT_EQ(parse_error(text), netns::Errc::unsupported);
}

// Version 2 adds client_addresses, optional: a version-2 record without it
// reads as "does not say", and a version-1 record with it is refused (the
// field did not exist then, so whoever wrote it is not a version-1 holder).
TEST(HolderRecord, ClientAddressesAreOptionalInVersion2AndUnknownInVersion1) {
  auto r = sample();
  r.client_addresses = std::vector<netns::ClientAddress>{{"net1", "198.18.0.5", 20, false},
                                                         {"net1", "2001:db8::5", 64, true}};
  std::string text = netns::serialize_record(r);
  EXPECT_NE(text.find("\"client_addresses\": \"198.18.0.5/20%net1 2001:db8::5/64%net1\""),
            std::string::npos)
      << text;
  EXPECT_EQ(netns::parse_record(text, "x"), r);

  r.client_addresses = std::vector<netns::ClientAddress>{};
  EXPECT_EQ(netns::parse_record(netns::serialize_record(r), "x"), r);  // "": known to be none

  r.client_addresses.reset();
  text = netns::serialize_record(r);
  EXPECT_EQ(text.find("client_addresses"), std::string::npos) << text;
  EXPECT_FALSE(netns::parse_record(text, "x").client_addresses.has_value());

  auto old = r;
  old.version = 1;  // written without the version-2 fields
  std::string v1 = netns::serialize_record(old);
  EXPECT_EQ(netns::parse_record(v1, "x").version, 1u);
  std::string msg;
  std::string v1_with = replace(v1, "\"socket\"", "\"client_addresses\": \"\", \"socket\"");
  EXPECT_EQ(parse_error(v1_with, &msg), netns::Errc::invalid_argument);
  EXPECT_NE(msg.find("unknown field \"client_addresses\""), std::string::npos) << msg;

  for (const char* bad : {"198.18.0.5", "198.18.0.5/33%net1", "198.18.0.5/20%", "nonsense/20%net1",
                          "198.18.0.5/20%net1  198.18.0.6/20%net1", "198.18.0.5/020%net1"}) {
    std::string t = replace(text, "\"socket\"",
                            std::string("\"client_addresses\": \"") + bad + "\", \"socket\"");
    EXPECT_EQ(parse_error(t, &msg), netns::Errc::invalid_argument) << bad;
    EXPECT_NE(msg.find("client address"), std::string::npos) << msg;
  }
}

TEST(HolderRecord, RejectsMissingExtraAndMistypedFields) {
  std::string good = netns::serialize_record(sample());
  std::string msg;
  EXPECT_EQ(parse_error(replace(good, "\"pid\": 4242,", ""), &msg), netns::Errc::invalid_argument);
  EXPECT_NE(msg.find("\"pid\" is missing"), std::string::npos) << msg;
  EXPECT_EQ(parse_error(replace(good, "\"socket\"", "\"extra\": 1, \"socket\""), &msg),
            netns::Errc::invalid_argument);
  EXPECT_NE(msg.find("unknown field \"extra\""), std::string::npos) << msg;
  EXPECT_EQ(parse_error(replace(good, "\"pid\": 4242", "\"pid\": \"4242\"")),
            netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error(replace(good, "\"pid\": 4242", "\"pid\": 0")),
            netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error(replace(good, "\"socket\": \"ceph-a.net.sock\"", "\"socket\": 7")),
            netns::Errc::invalid_argument);
}

TEST(HolderRecord, RejectsCorruptAndForeignContent) {
  std::string good = netns::serialize_record(sample());
  EXPECT_EQ(parse_error(""), netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error(good.substr(0, good.size() / 2)), netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error(good + "x"), netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error("[1,2,3]"), netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error("{\"clusterID\": \"a\", \"monitors\": []}"), netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error(replace(good, "\"ceph-a\"", "\"../etc\"")), netns::Errc::invalid_argument);
  EXPECT_EQ(parse_error(replace(good, "\"pid\": 4242", "\"pid\": 4242, \"pid\": 1")),
            netns::Errc::invalid_argument);
}

TEST(FlatJson, StrictAboutNumbersAndStrings) {
  EXPECT_THROW(netns::parse_flat_json("{\"a\": 01}"), netns::Error);
  EXPECT_THROW(netns::parse_flat_json("{\"a\": 1.5}"), netns::Error);
  EXPECT_THROW(netns::parse_flat_json("{\"a\": -1}"), netns::Error);
  EXPECT_THROW(netns::parse_flat_json("{\"a\": 18446744073709551616}"), netns::Error);
  EXPECT_THROW(netns::parse_flat_json("{\"a\": \"x\ny\"}"), netns::Error);
  EXPECT_THROW(netns::parse_flat_json("{\"a\": {}}"), netns::Error);
  EXPECT_THROW(netns::parse_flat_json("{\"a\": 1,}"), netns::Error);
  auto obj = netns::parse_flat_json(
      " {\"a\": 18446744073709551615, \"b\": \"q\\\"\\u0041\", \"c\": true} ");
  ASSERT_EQ(obj.size(), 3u);
  EXPECT_EQ(obj[0].second.integer, UINT64_MAX);
  EXPECT_EQ(obj[1].second.string, "q\"A");
  EXPECT_TRUE(obj[2].second.boolean);
  EXPECT_EQ(netns::json_string("a\"\x01"), "\"a\\\"\\u0001\"");
}
