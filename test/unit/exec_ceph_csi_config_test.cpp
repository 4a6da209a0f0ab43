// ceph-csi's config.json read by ceph-csi's rules (Go's encoding/json into
// ceph-csi's ClusterInfo): the holder path netns-exec picks must be the one
// ceph-csi picks. test/go-config compares the same reader with encoding/json
// itself on thousands of documents; these are the cases by name, with what
// ceph-csi does written out.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "netns/atomic_file.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/go_json.hpp"
#include "netns/test/support.hpp"
#include "netns_exec/ceph_csi_config.hpp"
#include "netns_exec/source.hpp"

namespace {

namespace ex = netns::exec;
namespace gj = netns::go_json;
using netns::Errc;
using netns::Error;
using ::testing::HasSubstr;

ex::CephCsiConfig decode(const std::string& text) {
  return ex::decode_ceph_csi_config(text, "config.json");
}

// The rbd path ceph-csi would use for cluster "a" ("" for none).
std::string rbd_of_a(const std::string& text) {
  const auto config = decode(text);
  const auto* a = config.find("a");
  if (!a) throw std::runtime_error("no cluster a");
  return a->rbd_netns;
}

std::string refusal(const std::string& text) {
  try {
    decode(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}

TEST(CephCsiConfig, KeysMatchCaseInsensitivelyAsInGo) {
  // The issue's cases: ceph-csi takes these as rbd.netNamespaceFilePath.
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","RBD":{"netNamespaceFilePath":"/h/a.net.ns"}}])"),
            "/h/a.net.ns");
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"NetNamespaceFilePath":"/h/a.net.ns"}}])"),
            "/h/a.net.ns");
  EXPECT_EQ(rbd_of_a(R"([{"CLUSTERID":"a","Rbd":{"NETNAMESPACEFILEPATH":"/h/a.net.ns"}}])"),
            "/h/a.net.ns");
  // Go folds U+017F (long s) to S and U+212A (Kelvin) to K; \u escapes
  // are decoded before matching.
  EXPECT_EQ(
      rbd_of_a("[{\"clu\xC5\xBFterID\":\"a\",\"rbd\":{\"netName\\u017fpaceFilePath\":\"/h/s\"}}]"),
      "/h/s");
  EXPECT_THAT(refusal("[{\"clusterID\":\"a\",\"cephFS\":{\"\xE2\x84\xAA"
                      "ernelMountOptions\":5}}]"),
              HasSubstr("kernelMountOptions"));
  EXPECT_EQ(rbd_of_a(R"([{"cluster\u0049D":"a","r\u0062d":{"netNamespaceFilePath":"/h/e"}}])"),
            "/h/e");
  // Not folds: dotless i, underscores, a trailing space.
  EXPECT_EQ(rbd_of_a("[{\"clusterID\":\"a\",\"rbd\":{\"netNamespaceF\xC4\xB1lePath\":\"/h/x\"}}]"),
            "");
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"net_namespace_file_path":"/h/x"}}])"), "");
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd ":{"netNamespaceFilePath":"/h/x"}}])"), "");
  // The cluster ID itself is compared exactly, as ceph-csi compares it.
  EXPECT_EQ(decode(R"([{"clusterID":"A"}])").find("a"), nullptr);
}

TEST(CephCsiConfig, DuplicatesResolveAsInGo) {
  // Later keys overwrite: "rbd" then "Rbd" is the second path.
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"/h/1"},
                        "Rbd":{"netNamespaceFilePath":"/h/2"}}])"),
            "/h/2");
  // A second object for a section merges into the first, null keeps it.
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"/h/1"},
                        "RBD":{"radosNamespace":"t"}}])"),
            "/h/1");
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"/h/1"},"rbd":null}])"),
            "/h/1");
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"/h/1",
                        "NetNamespaceFilePath":null}}])"),
            "/h/1");
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"/h/1",
                        "netNamespaceFilePath":""}}])"),
            "");
  // The later clusterID wins; of two entries with one ID, the first.
  EXPECT_EQ(decode(R"([{"clusterID":"a","ClusterID":"b"}])").clusters.at(0).cluster_id, "b");
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"/h/1"}},
                        {"clusterID":"a","rbd":{"netNamespaceFilePath":"/h/2"}}])"),
            "/h/1");
  // Go reuses a slice's array: ["m1","m2","m3"], then ["x"], then
  // ["y",null,null] is ["y","m2","m3"]; [] and null start afresh.
  auto reuse = decode(R"([{"clusterID":"a","monitors":["m1","m2","m3"],"monitors":["x"],
                          "Monitors":["y",null,null]}])");
  EXPECT_EQ(reuse.clusters.at(0).monitors, (std::vector<std::string>{"y", "m2", "m3"}));
  auto fresh =
      decode(R"([{"clusterID":"a","monitors":["m1","m2"],"monitors":[],"monitors":[null,"z"]}])");
  EXPECT_EQ(fresh.clusters.at(0).monitors, (std::vector<std::string>{"", "z"}));
}

TEST(CephCsiConfig, WhatGoRefusesIsRefusedWhole) {
  // A wrong type anywhere in a known field fails Unmarshal: ceph-csi then
  // uses no cluster of the file, not even a well-formed one before it.
  EXPECT_THAT(refusal(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"/h/1"}},
                         {"clusterID":"b","monitors":"198.18.0.1"}])"),
              HasSubstr("entry 2, field \"monitors\" is a string, not a list of strings"));
  EXPECT_THAT(refusal(R"([{"clusterID":"a","rbd":{"mirrorDaemonCount":1.0}}])"),
              HasSubstr("\"mirrorDaemonCount\" is 1.0"));
  EXPECT_THAT(refusal(R"([{"clusterID":"a","rbd":{"mirrorDaemonCount":9223372036854775808}}])"),
              HasSubstr("64-bit"));
  EXPECT_NO_THROW(decode(R"([{"rbd":{"mirrorDaemonCount":-9223372036854775808}}])"));
  EXPECT_THAT(refusal(R"([{"clusterID":"a"},"b"])"), HasSubstr("entry 2 is a string"));
  EXPECT_THAT(refusal(R"({"clusterID":"a"})"), HasSubstr("the top level is an object"));
  EXPECT_THAT(refusal(R"([{"clusterID":"a","readAffinity":{"enabled":"yes"}}])"),
              HasSubstr("enabled"));
  EXPECT_THAT(refusal(R"([{"clusterID":7}])"), HasSubstr("ceph-csi uses no cluster of it"));
  // Syntax, as Go's scanner sees it.
  for (const char* bad : {"\xEF\xBB\xBF[]", "[{\"clusterID\":\"a\",}]", "[] x", "[01]",
                          "[{\"clusterID\":\"a\x01\"}]", "", "[\"\\x\"]", "[1.]", "[-]", "[tru]"})
    EXPECT_THAT(refusal(bad), HasSubstr("not valid JSON")) << bad;
  // Keys ceph-csi does not know are skipped whatever they hold; a top-level
  // null, an empty list and null entries are no clusters, not errors.
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","x":{"y":[1,{"z":null}]},"rbd":{"pool":[],
                        "netNamespaceFilePath":"/h/1"}}])"),
            "/h/1");
  EXPECT_TRUE(decode("null").clusters.empty());
  EXPECT_TRUE(decode(" [ ] ").clusters.empty());
  EXPECT_EQ(decode(R"([null,{"clusterID":"a"}])").clusters.size(), 2u);
}

TEST(CephCsiConfig, NestingLimitIsGos) {
  // encoding/json allows 10000 nested containers: the entry list, the entry
  // and 9998 arrays under an unknown key are fine, one more is not.
  auto deep = [](size_t n) {
    return R"([{"clusterID":"a","x":)" + std::string(n, '[') + std::string(n, ']') + "}]";
  };
  EXPECT_NO_THROW(decode(deep(9998)));
  EXPECT_THAT(refusal(deep(9999)), HasSubstr("exceeded max depth"));
}

TEST(CephCsiConfig, StringsDecodeAsInGo) {
  // Invalid UTF-8: each bad byte one U+FFFD; lone surrogates U+FFFD; a pair
  // one rune.
  EXPECT_EQ(
      rbd_of_a("[{\"clusterID\":\"a\",\"rbd\":{\"netNamespaceFilePath\":\"/p/\xFF\xE2\x82.\"}}]"),
      "/p/\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD.");
  EXPECT_EQ(
      rbd_of_a(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"\ud83d\ude00\ud83d|\udc00"}}])"),
      "\xF0\x9F\x98\x80\xEF\xBF\xBD|\xEF\xBF\xBD");
  EXPECT_EQ(rbd_of_a(R"([{"clusterID":"a","rbd":{"netNamespaceFilePath":"\/p\/\u0061\t"}}])"),
            "/p/a\t");
  EXPECT_EQ(gj::unquote("\xED\xA0\x80"),
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");               // UTF-8 surrogate
  EXPECT_EQ(gj::unquote("\xF4\x8F\xBF\xBF"), "\xF4\x8F\xBF\xBF");  // U+10FFFF
  EXPECT_EQ(gj::unquote("\xF4\x90\x80\x80"),                       // above U+10FFFF
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(gj::fold_key("netName\xC5\xBFpace\xE2\x84\xAA"), "NETNAMESPACEK");
  EXPECT_EQ(gj::parse_int64("-0"), 0);
  EXPECT_EQ(gj::parse_int64("1e2"), std::nullopt);
  EXPECT_EQ(gj::parse_int64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(gj::parse_int64("-9223372036854775809"), std::nullopt);
}

class CephCsiConfigFile : public ::testing::Test {
 protected:
  std::string write(const std::string& content) {
    netns::UniqueFd d = netns::open_fd(tmp.path(), O_RDONLY | O_DIRECTORY);
    netns::write_file_atomic(d.get(), "config.json", content, 0644, tmp.path());
    return tmp / "config.json";
  }
  netns::test::TempDir tmp;
};

TEST_F(CephCsiConfigFile, LookupUsesCephCsisRules) {
  const std::string cfg = write(R"([
    {"ClusterID": "a", "RBD": {"NetNamespaceFilePath": "/r/a.net.ns"},
     "rbd": {"radosNamespace": "t"}, "CephFs": {"netNamespaceFilePath": "/c/a.net.ns"}},
    {"clusterID": "b", "rbd": {"netNamespaceFilePath": "/r/1"}, "Rbd": {"netNamespaceFilePath": "/r/2"}},
    {"clusterID": "nul", "nfs": {"netNamespaceFilePath": "/n/x\u0000/y"}}
  ])");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "a", ex::ConfigKind::rbd), "/r/a.net.ns");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "a", ex::ConfigKind::cephfs), "/c/a.net.ns");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "a", ex::ConfigKind::nfs), "");
  EXPECT_EQ(ex::lookup_netns_path(cfg, "b", ex::ConfigKind::rbd), "/r/2");
  // A NUL would cut the path short in C: refused, as Go's exec refuses it.
  try {
    ex::lookup_netns_path(cfg, "nul", ex::ConfigKind::nfs);
    ADD_FAILURE() << "a path with a NUL byte was returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_THAT(e.what(), HasSubstr("NUL"));
  }
}

TEST_F(CephCsiConfigFile, AnEntryWithoutAPathIsAWarningNamingIt) {
  // resolve() says what it did and why, in the result (the CLI logs it, the
  // C ABI and the Go package hand it over).
  const std::string cfg = write(R"([{"clusterID": "a", "RBD": {"radosNamespace": "t"},
                                      "cephFS": {"netNamespaceFilePath": "/c/a.net.ns"}}])");
  ex::ResolvedNamespace ns = ex::resolve(ex::Source::cluster("a", cfg, ex::ConfigKind::rbd));
  EXPECT_TRUE(ns.own_namespace);
  EXPECT_THAT(ns.warning, HasSubstr("cluster \"a\""));
  EXPECT_THAT(ns.warning, HasSubstr(cfg));
  EXPECT_THAT(ns.warning, HasSubstr("rbd.netNamespaceFilePath"));
  EXPECT_THAT(ns.warning, HasSubstr("own network namespace"));
}

}  // namespace
