#pragma once
// What the netns-holder chart renders for one cluster (commands of the holder
// container, its probe and its preStop hook; ceph-csi's config.json), read by
// running the real helm through chart-facts.mjs. The privileged tests run
// these very commands, so a flag the binaries stop accepting fails there.
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace netns::test {

struct ChartHolder {
  std::string driver;  // e.g. rbd.csi.ceph.com
  std::string dir;     // <kubeletDir>/plugins/<driver>
  std::vector<std::string> command, check, guard;
};

using Environment = std::map<std::string, std::string>;

struct ChartFacts {
  std::vector<ChartHolder> holders;
  std::string config_json;  // the config.json text ceph-csi reads
  // Per driver, the netns-exec environment of its node plugin as the kubelet
  // gives it: the Kustomize component's env for that kind with its
  // configMapKeyRefs resolved in the netns-exec-env the chart renders.
  std::map<std::string, Environment> plugin_env;
  [[nodiscard]] const ChartHolder& holder(const std::string& driver) const;
};

// Renders the chart for cluster `id` (drivers: the chart's defaults unless
// given; targets: the cluster's `targets`). Throws std::runtime_error with
// helm's message when the render fails.
ChartFacts chart_facts(const std::string& id, bool socket, const std::string& kubelet_dir,
                       std::chrono::seconds guard_max_wait, const std::string& monitor = "",
                       const std::vector<std::string>& drivers = {},
                       const std::vector<std::string>& targets = {});

}  // namespace netns::test
