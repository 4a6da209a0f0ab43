// ceph-csi's config.json decoded as encoding/json decodes it into
// ceph-csi's []ClusterInfo. The shape (field names as ceph-csi's json tags
// spell them, and their Go types) is ceph-csi's, api/deploy/kubernetes:
//
//   ClusterInfo   clusterID string, monitors []string, cephFS CephFS, rbd RBD,
//                 nfs NFS, readAffinity ReadAffinity
//   CephFS        netNamespaceFilePath, subvolumeGroup, radosNamespace,
//                 kernelMountOptions, fuseMountOptions: string
//   RBD           netNamespaceFilePath, radosNamespace string, mirrorDaemonCount int
//   NFS           netNamespaceFilePath string
//   ReadAffinity  enabled bool, crushLocationLabels []string
//
// Every field is type-checked, also those netns-exec does not use: a wrong
// type in any of them makes ceph-csi's Unmarshal fail, and then ceph-csi
// uses no cluster of the file. test/go-config compares this decoder with
// encoding/json itself on thousands of generated documents.
#include "netns_exec/ceph_csi_config.hpp"

#include <array>

#include "netns/error.hpp"
#include "netns/go_json.hpp"

namespace netns::exec {

namespace {

using go_json::Cursor;
using go_json::Kind;

constexpr std::array<std::string_view, 6> kClusterInfo = {"clusterID", "monitors", "cephFS",
                                                          "rbd",       "nfs",      "readAffinity"};
constexpr std::array<std::string_view, 5> kCephFS = {"netNamespaceFilePath", "subvolumeGroup",
                                                     "radosNamespace", "kernelMountOptions",
                                                     "fuseMountOptions"};
constexpr std::array<std::string_view, 3> kRBD = {"netNamespaceFilePath", "radosNamespace",
                                                  "mirrorDaemonCount"};
constexpr std::array<std::string_view, 1> kNFS = {"netNamespaceFilePath"};
constexpr std::array<std::string_view, 2> kReadAffinity = {"enabled", "crushLocationLabels"};

// A Go []string as the decoder treats it across several arrays decoded into
// the same field (duplicate keys). Go reuses the slice's backing array: a
// second, shorter array truncates the length but not the array, and a third,
// longer one exposes what the first left there again, so a null element
// there keeps the first array's string ("monitors": ["a","b"], then ["x"],
// then ["y", null] is ["y", "b"]). The backing array only ever grows while
// the slice lives (Go grows it only when it is full), so keeping every
// element ever written is exact; null and [] start a new slice.
struct GoStringSlice {
  std::vector<std::string> backing;
  size_t len = 0;
  void reset() {
    backing.clear();
    len = 0;
  }
  [[nodiscard]] std::vector<std::string> value() const {
    return {backing.begin(), backing.begin() + static_cast<std::ptrdiff_t>(len)};
  }
};

class Decoder {
 public:
  Decoder(std::string_view text, const std::string& shown) : cur_(text), shown_(shown) {}

  CephCsiConfig config() {
    CephCsiConfig out;
    const Kind kind = cur_.peek();
    if (kind == Kind::null) return out;  // Go leaves the slice nil: no cluster, no error
    if (kind != Kind::array) wrong(kind, "a list of cluster entries");
    cur_.begin_array();
    while (cur_.next_element()) {
      where_.assign(1, "entry " + std::to_string(out.clusters.size() + 1));
      out.clusters.push_back(entry());
    }
    return out;
  }

 private:
  CephCsiCluster entry() {
    CephCsiCluster c;
    GoStringSlice monitors;
    // Each section merges: a second "rbd" (or "RBD") object sets only the
    // keys it names, the first's others stay.
    object(kClusterInfo, "an object (a cluster entry)", [&](int field) {
      switch (field) {
        case 0:
          string(c.cluster_id);
          break;
        case 1:
          strings(monitors);
          break;
        case 2:
          object(kCephFS, "an object", [&](int f) {
            std::string ignored;
            string(f == 0 ? c.cephfs_netns : ignored);
          });
          break;
        case 3:
          object(kRBD, "an object", [&](int f) {
            std::string ignored;
            if (f == 2)
              integer();
            else
              string(f == 0 ? c.rbd_netns : ignored);
          });
          break;
        case 4:
          object(kNFS, "an object", [&](int) { string(c.nfs_netns); });
          break;
        case 5:
          object(kReadAffinity, "an object", [&](int f) {
            GoStringSlice ignored;
            if (f == 0)
              boolean();
            else
              strings(ignored);
          });
          break;
      }
    });
    c.monitors = monitors.value();
    return c;
  }

  // A struct: null leaves it as it is; an object's known keys are decoded
  // into it, the rest skipped.
  template <size_t N, class Member>
  void object(const std::array<std::string_view, N>& names, const char* wanted, Member&& member) {
    const Kind kind = cur_.peek();
    if (kind == Kind::null) return cur_.null();
    if (kind != Kind::object) wrong(kind, wanted);
    cur_.begin_object();
    std::string key;
    while (cur_.next_key(key)) {
      const int field = go_json::field_index(key, names);
      if (field < 0) {
        cur_.skip();
        continue;
      }
      // ceph-csi's name for it, and how the file spells it when otherwise.
      const std::string name(names[static_cast<size_t>(field)]);
      where_.push_back(quote(name) + (key == name ? "" : " (written " + quote(key) + ")"));
      member(field);
      where_.pop_back();
    }
  }

  // A string field: null keeps what an earlier key set.
  void string(std::string& into) {
    const Kind kind = cur_.peek();
    if (kind == Kind::null) return cur_.null();
    if (kind != Kind::string) wrong(kind, "a string");
    into = cur_.string();
  }

  void strings(GoStringSlice& into) {
    const Kind kind = cur_.peek();
    if (kind == Kind::null) {
      cur_.null();
      into.reset();
      return;
    }
    if (kind != Kind::array) wrong(kind, "a list of strings");
    cur_.begin_array();
    size_t i = 0;
    while (cur_.next_element()) {
      if (i >= into.backing.size()) into.backing.emplace_back();
      if (i >= into.len) into.len = i + 1;
      where_.push_back("[" + std::to_string(i) + "]");
      string(into.backing[i]);
      where_.pop_back();
      ++i;
    }
    if (i == 0) into.reset();
    if (i < into.len) into.len = i;
  }

  void integer() {
    const Kind kind = cur_.peek();
    if (kind == Kind::null) return cur_.null();
    if (kind != Kind::number) wrong(kind, "a whole number");
    const std::string_view text = cur_.number();
    if (!go_json::parse_int64(text))
      throw malformed("is " + std::string(text) + ", not a whole number in the 64-bit range");
  }

  void boolean() {
    const Kind kind = cur_.peek();
    if (kind == Kind::null) return cur_.null();
    if (kind != Kind::boolean) wrong(kind, "true or false");
    cur_.boolean();
  }

  [[noreturn]] void wrong(Kind found, const char* wanted) {
    throw malformed("is " + std::string(go_json::kind_name(found)) + ", not " + wanted);
  }

  Error malformed(const std::string& what) const {
    // "entry 2, field \"rbd\".\"mirrorDaemonCount\"", "entry 1, field \"monitors\"[3]"
    std::string where = where_.empty() ? "the top level" : where_.front();
    for (size_t i = 1; i < where_.size(); ++i)
      where += (i == 1 ? ", field " : where_[i][0] == '[' ? "" : ".") + where_[i];
    return Error(
        Errc::invalid_argument,
        "parse " + quote(shown_) + ": " + where + " " + what +
            ": Go's encoding/json refuses the whole file, so ceph-csi uses no cluster of it",
        "is the ceph-csi-config ConfigMap what ceph-csi expects: a list of "
        "{\"clusterID\": \"...\", \"monitors\": [\"...\"], \"rbd\": "
        "{\"netNamespaceFilePath\": \"...\"}, ...}?");
  }

  Cursor cur_;
  const std::string& shown_;
  std::vector<std::string> where_;  // "entry 2", "\"rbd\"", ... for messages
};

}  // namespace

const std::string& CephCsiCluster::netns_path(ConfigKind kind) const noexcept {
  switch (kind) {
    case ConfigKind::cephfs:
      return cephfs_netns;
    case ConfigKind::nfs:
      return nfs_netns;
    case ConfigKind::rbd:
      break;
  }
  return rbd_netns;
}

const CephCsiCluster* CephCsiConfig::find(std::string_view cluster_id) const noexcept {
  for (const auto& c : clusters)
    if (c.cluster_id == cluster_id) return &c;
  return nullptr;
}

CephCsiConfig decode_ceph_csi_config(std::string_view text, const std::string& shown) {
  // Unmarshal checks the whole text first: a syntax error anywhere, even
  // after the entry asked about, is an error before anything is decoded.
  if (auto e = go_json::syntax_error(text))
    throw Error(Errc::invalid_argument, "parse " + quote(shown) + ": not valid JSON: " + *e,
                "is the ceph-csi-config ConfigMap valid JSON (a list of {\"clusterID\", "
                "\"monitors\", \"rbd\": {\"netNamespaceFilePath\"}, ...})?");
  return Decoder(text, shown).config();
}

std::string no_holder_path_warning(const std::string& config, const std::string& cluster_id,
                                   ConfigKind kind) {
  const char* section = kind == ConfigKind::rbd      ? "rbd"
                        : kind == ConfigKind::cephfs ? "cephFS"
                                                     : "nfs";
  return "cluster " + quote(cluster_id) + " has an entry in " + quote(config) + " but no " +
         section +
         ".netNamespaceFilePath (keys matched as ceph-csi matches them, case "
         "insensitively): the command runs in the caller's own network namespace, as ceph-csi's "
         "would; if this cluster has a holder, add its path there";
}

}  // namespace netns::exec
