// netns-exec's side of test/go-config: the same lines as render.go prints
// for encoding/json, made with netns-exec's reader of ceph-csi's config.json
// (netns::exec::decode_ceph_csi_config and CephCsiConfig::find, the code
// --cluster-id, the library, the C ABI and transparent mode use).
//   netns_config_driver           framed documents on stdin ("<length>\n" then
//                                 the bytes), each answered by its lines and "."
//   netns_config_driver --folds   every rune outside ASCII whose folded form
//                                 (netns::go_json::fold_key) is ASCII
#include <cstdio>
#include <iostream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "netns/error.hpp"
#include "netns/go_json.hpp"
#include "netns_exec/ceph_csi_config.hpp"

namespace {

std::string escape(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c > 0x20 && c < 0x7f && c != '\\' && c != '"') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out + "\"";
}

std::string escape_list(const std::vector<std::string>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) out += (i ? "," : "") + escape(list[i]);
  return out + "]";
}

std::string render(const std::string& data) {
  netns::exec::CephCsiConfig config;
  try {
    config = netns::exec::decode_ceph_csi_config(data, "config.json");
  } catch (const netns::Error&) {
    return "error\n";
  }
  std::string out = "ok " + std::to_string(config.clusters.size()) + "\n";
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (size_t i = 0; i < config.clusters.size(); ++i) {
    const auto& c = config.clusters[i];
    out += "entry " + std::to_string(i) + " id=" + escape(c.cluster_id) +
           " monitors=" + escape_list(c.monitors) + " rbd=" + escape(c.rbd_netns) +
           " cephfs=" + escape(c.cephfs_netns) + " nfs=" + escape(c.nfs_netns) + "\n";
    if (seen.insert(c.cluster_id).second) ids.push_back(c.cluster_id);
  }
  ids.push_back("zz-in-no-entry");
  for (const auto& id : ids) {
    const auto* found = config.find(id);
    const long index = found ? found - config.clusters.data() : -1;
    out += "find " + escape(id) + " " + std::to_string(index) + "\n";
  }
  return out;
}

std::string utf8(uint32_t r) {
  std::string out;
  if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
  }
  out += static_cast<char>(0x80 | (r & 0x3F));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--folds") {
    for (uint32_t r = 0x80; r <= 0x10FFFF; ++r) {
      if (r >= 0xD800 && r < 0xE000) continue;
      const std::string folded = netns::go_json::fold_key(utf8(r));
      if (folded.size() == 1 && static_cast<unsigned char>(folded[0]) < 0x80)
        std::printf("%04X %s\n", r, folded.c_str());
    }
    return 0;
  }
  std::ios::sync_with_stdio(false);
  std::string header;
  while (std::getline(std::cin, header)) {
    const size_t length = std::stoul(header);
    std::string data(length, '\0');
    if (!std::cin.read(data.data(), static_cast<std::streamsize>(length))) {
      std::cerr << "netns_config_driver: input ends inside a document\n";
      return 2;
    }
    std::cout << render(data) << ".\n";
  }
  return 0;
}
