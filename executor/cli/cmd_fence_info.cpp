// netns-exec fence-info [--holder-dir DIR ...] [--node-netns PATH]
//                       [--output text|json|networkfence|ceph] [--name N]
//                       [--fence-class C]
// What a fence of this node must cover: the client addresses of the node's
// own namespace and of every holder's namespace. A kernel client mapped
// through a holder is seen by Ceph from the holder's address, not the
// node's, so a fence built from the node's addresses alone leaves those
// mappings writing.
//
// The holders' addresses come from their records (the holder keeps them
// current); a record is used only from a directory and a file that pass the
// same provenance checks resolve() applies (trust.hpp), so a planted record
// cannot steer a fence. A record that cannot be used, or one from a holder
// too old to publish addresses, makes the answer incomplete: it is still
// printed, and the exit status is 1 so a script does not fence with it
// unknowingly.
#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "command.hpp"
#include "holder_addresses.hpp"
#include "log.hpp"
#include "netns/atomic_file.hpp"
#include "netns/client_addresses.hpp"
#include "netns/cluster_id.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/holder_record.hpp"
#include "netns/net_snapshot.hpp"
#include "netns/trust.hpp"
#include "netns_exec/inspect/netns_thread.hpp"

namespace netns::cli {

namespace {

nlohmann::ordered_json addresses_json(const std::vector<ClientAddress>& list) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& c : list)
    a.push_back({{"interface", c.interface},
                 {"address", c.address},
                 {"prefix", c.prefix},
                 {"family", c.ipv6 ? "inet6" : "inet"},
                 {"cidr", address_cidr(c)}});
  return a;
}

// Sorted, without duplicates (two holders can share an address only by
// mistake, but a fence lists it once either way).
std::vector<std::string> all_cidrs(const std::vector<ClientAddress>& node,
                                   const std::vector<HolderAddresses>& holders) {
  std::set<std::string> set;
  for (const auto& a : node) set.insert(address_cidr(a));
  for (const auto& h : holders)
    if (h.addresses)
      for (const auto& a : *h.addresses) set.insert(address_cidr(a));
  return {set.begin(), set.end()};
}

std::string yaml_quoted(const std::string& s) { return nlohmann::json(s).dump(); }

class FenceInfoCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "fence-info"; }
  [[nodiscard]] const char* description() const override {
    return "Print every address a fence of this node must cover (the node's "
           "and each holder's)";
  }

  void setup(CLI::App& app) override {
    app.add_option("--holder-dir", dirs_,
                   "A holder directory; every <ID>.holder.json in it "
                   "(repeatable; default: "
                   "ceph-csi's rbd and cephfs plugin directories)");
    app.add_option("--node-netns", node_netns_,
                   "The node's network namespace (default: the one netns-exec "
                   "runs in; from a "
                   "pod with hostPID: /proc/1/ns/net)");
    app.add_option("--output", output_, "text, json, networkfence or ceph")
        ->check(CLI::IsMember({"text", "json", "networkfence", "ceph"}))
        ->capture_default_str();
    app.add_option("--name", fence_name_, "metadata.name of the NetworkFence (networkfence)");
    app.add_option("--fence-class", fence_class_,
                   "spec.networkFenceClassName of the NetworkFence (networkfence)")
        ->capture_default_str();
  }

  int run() override {
    const bool named = !dirs_.empty();
    std::vector<std::string> dirs = dirs_;
    if (!named) dirs = default_holder_dirs();
    std::vector<HolderAddresses> holders;
    for (const auto& d : dirs) {
      auto found = read_holder_dir(d, named);
      holders.insert(holders.end(), found.begin(), found.end());
    }
    std::vector<ClientAddress> node = node_addresses(node_netns_);
    std::vector<std::string> cidrs = all_cidrs(node, holders);
    bool complete = std::none_of(holders.begin(), holders.end(),
                                 [](const HolderAddresses& h) { return !h.problem.empty(); });
    for (const auto& h : holders)
      if (!h.problem.empty()) log_warn(quote(h.record_path) + ": " + h.problem);

    std::string out;
    if (output_ == "json") {
      auto j = nlohmann::ordered_json::object();
      j["format"] = 1;
      auto node_json = nlohmann::ordered_json::object();
      node_json["netns"] =
          node_netns_.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(node_netns_);
      node_json["addresses"] = addresses_json(node);
      j["node"] = std::move(node_json);
      auto hs = nlohmann::ordered_json::array();
      for (const auto& h : holders) {
        nlohmann::ordered_json e = {{"record", h.record_path}, {"cluster_id", h.cluster_id}};
        e["pid"] = h.pid ? nlohmann::ordered_json(h.pid) : nlohmann::ordered_json();
        e["alive"] = h.alive ? nlohmann::ordered_json(*h.alive) : nlohmann::ordered_json();
        e["addresses"] = h.addresses ? addresses_json(*h.addresses) : nlohmann::ordered_json();
        e["problem"] =
            h.problem.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(h.problem);
        hs.push_back(std::move(e));
      }
      j["holders"] = std::move(hs);
      j["cidrs"] = cidrs;
      j["complete"] = complete;
      out = j.dump(2) + "\n";
    } else if (output_ == "networkfence") {
      // csiaddons.openshift.io/v1alpha1 NetworkFence: cluster-scoped; the
      // class carries the provisioner, the secret and the clusterID.
      char host[256] = {};
      ::gethostname(host, sizeof host - 1);
      std::string name = fence_name_.empty() ? std::string(host) + "-fence" : fence_name_;
      out =
          "apiVersion: csiaddons.openshift.io/v1alpha1\nkind: "
          "NetworkFence\nmetadata:\n  name: " +
          yaml_quoted(name) + "\nspec:\n  networkFenceClassName: " + yaml_quoted(fence_class_) +
          "\n  fenceState: Fenced\n  cidrs:\n";
      for (const auto& c : cidrs) out += "    - " + yaml_quoted(c) + "\n";
      if (cidrs.empty()) out += "    []\n";
    } else if (output_ == "ceph") {
      for (const auto& c : cidrs) out += "ceph osd blocklist range add " + c + "\n";
    } else {
      out += "node (" + (node_netns_.empty() ? std::string("own network namespace") : node_netns_) +
             "):";
      if (node.empty()) out += " no client address";
      out += "\n";
      for (const auto& a : node) out += "  " + interface_cidr(a) + " on " + a.interface + "\n";
      for (const auto& h : holders) {
        out += "holder " + (h.cluster_id.empty() ? h.record_path : quote(h.cluster_id)) + " (" +
               h.record_path + (h.pid ? ", pid " + std::to_string(h.pid) : std::string()) +
               (h.alive ? (*h.alive ? ", alive" : ", not running") : "") + "):";
        if (h.addresses && h.addresses->empty()) out += " no client address";
        if (!h.problem.empty()) out += " UNKNOWN: " + h.problem;
        out += "\n";
        if (h.addresses)
          for (const auto& a : *h.addresses)
            out += "  " + interface_cidr(a) + " on " + a.interface + "\n";
      }
      out += "fence:";
      for (const auto& c : cidrs) out += " " + c;
      if (cidrs.empty()) out += " nothing";
      out += complete ? "\n" : "\n(incomplete: see the warnings above)\n";
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) return 1;
    return complete ? 0 : 1;
  }

 private:
  std::vector<std::string> dirs_;
  std::string node_netns_;
  std::string output_ = "text";
  std::string fence_name_;
  std::string fence_class_ = "netns-holder";
};

}  // namespace

std::unique_ptr<Command> make_fence_info_command() { return std::make_unique<FenceInfoCommand>(); }

}  // namespace netns::cli
