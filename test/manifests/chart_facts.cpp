#include "chart_facts.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "netns/test/support.hpp"

namespace netns::test {

const ChartHolder& ChartFacts::holder(const std::string& driver) const {
  for (const auto& h : holders) {
    if (h.driver == driver) return h;
  }
  throw std::runtime_error("the chart rendered no holder for " + driver);
}

namespace {
std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}
}  // namespace

ChartFacts chart_facts(const std::string& id, bool socket, const std::string& kubelet_dir,
                       std::chrono::seconds guard_max_wait, const std::string& monitor,
                       const std::vector<std::string>& drivers,
                       const std::vector<std::string>& targets) {
  std::vector<std::string> argv = {
      NETNS_NODE,  std::string(NETNS_SOURCE_DIR) + "/test/manifests/chart-facts.mjs",
      id,          socket ? "socket" : "symlink",
      kubelet_dir, std::to_string(guard_max_wait.count())};
  if (!monitor.empty()) argv.push_back(monitor);
  if (!drivers.empty()) argv.push_back("--drivers=" + joined(drivers));
  if (!targets.empty()) argv.push_back("--targets=" + joined(targets));
  RunOptions options;
  options.timeout = std::chrono::seconds{120};
  const RunResult r = run_command(argv, options);
  if (!r.ok()) {
    throw std::runtime_error(
        "rendering the chart failed (is helm set up? scripts/setup.d/helm.sh): " + r.describe());
  }
  const auto doc = nlohmann::json::parse(r.out);
  ChartFacts facts;
  for (const auto& h : doc.at("holders")) {
    facts.holders.push_back(ChartHolder{h.at("driver").get<std::string>(),
                                        h.at("dir").get<std::string>(),
                                        h.at("command").get<std::vector<std::string>>(),
                                        h.at("check").get<std::vector<std::string>>(),
                                        h.at("guard").get<std::vector<std::string>>()});
  }
  facts.config_json = doc.at("config").dump(2);
  for (const auto& [driver, env] : doc.at("pluginEnv").items())
    facts.plugin_env[driver] = env.get<Environment>();
  return facts;
}

}  // namespace netns::test
