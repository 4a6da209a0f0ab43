// netns-exec shim explain [--json] -- CMD ARGS...
// Transparent mode's dry run, for the operator at 3 am: for `rbd ...`,
// `mount.ceph ...` (or `mount -t ceph ...`) as the plugin would run it,
// which real program the shim would exec and why, which monitors the
// command names, which cluster they match, whether it is held, which holder
// file would be opened, and whether that file passes the checks now (the
// same resolve() the shim makes, without waiting and without entering).
// Nothing is run. Exit 0 when the command would run (routed or untouched),
// 125 when the shim would refuse it.
#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns_exec/ceph.hpp"
#include "netns_exec/redact.hpp"
#include "netns_exec/shim/decision.hpp"
#include "netns_exec/shim/real_program.hpp"
#include "netns_exec/shim/targets.hpp"
#include "nsenter_mode.hpp"

namespace netns::cli {

using exec::shim::basename_of;

namespace {

// `mount -t ceph SRC DIR -o ...` is what the operator sees in ceph-csi's
// log; mount(8) turns it into `mount.TYPE SRC DIR -o ...`.
std::vector<std::string> as_mount_helper(const std::vector<std::string>& mount,
                                         const std::string& type) {
  std::vector<std::string> out{"mount." + type};
  for (size_t i = 1; i < mount.size(); ++i) {
    if (mount[i] == "-t" && i + 1 < mount.size()) {
      ++i;
      continue;
    }
    if (mount[i].rfind("-t", 0) == 0 && mount[i].size() > 2) continue;
    out.push_back(mount[i]);
  }
  return out;
}

// The file system type of `mount -t TYPE ...` ("" when none is given).
std::string mount_type(const std::vector<std::string>& mount) {
  for (size_t i = 1; i < mount.size(); ++i) {
    if (mount[i] == "-t" && i + 1 < mount.size()) return mount[i + 1];
    if (mount[i].rfind("-t", 0) == 0 && mount[i].size() > 2) return mount[i].substr(2);
  }
  return "";
}

// What execvp would run for `name` ("name" itself when nothing is found).
std::string first_on_path(const std::string& name) {
  const char* env = ::getenv("PATH");
  for (const auto& dir : exec::shim::absolute_path_entries(env ? env : exec::shim::kDefaultPath)) {
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;
}

// `nvme disconnect -d /dev/nvmeN` (or --device[=]): the device named.
std::string disconnected_device(const std::vector<std::string>& cmd) {
  if (cmd.size() < 2 || cmd[1] != "disconnect") return "";
  std::string device;
  for (size_t i = 2; i < cmd.size(); ++i) {
    if ((cmd[i] == "-d" || cmd[i] == "--device") && i + 1 < cmd.size())
      device = cmd[++i];
    else if (cmd[i].rfind("--device=", 0) == 0)
      device = cmd[i].substr(9);
  }
  return device;
}

class ShimCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "shim"; }
  [[nodiscard]] const char* description() const override {
    return "Transparent mode (netns-exec installed as rbd, mount.ceph, nvme, mount.nfs): explain a "
           "command's route";
  }

  void setup(CLI::App& app) override {
    app.require_subcommand(1);
    CLI::App* explain = app.add_subcommand(
        "explain", "Which cluster, holder and real program `CMD ARGS...` would get; runs nothing");
    explain->add_flag("--json", json_, "One JSON document on stdout");
    explain
        ->add_option("--sys-class-nvme", sys_class_nvme_,
                     "nvme disconnect: where the controller's address is read")
        ->capture_default_str();
    explain
        ->add_option("command", argv_,
                     "-- rbd|mount.ceph|nvme|mount.nfs|mount -t ceph|nfs|nfs4 ARGS...")
        ->required();
  }

  int run() override {
    std::vector<std::string> cmd = argv_;
    std::string_view invoked = basename_of(cmd.front());
    if (invoked == "mount") {
      const std::string type = mount_type(cmd);
      if (type != "ceph" && type != "nfs" && type != "nfs4")
        throw Error(Errc::invalid_argument,
                    "shim explain: only `mount -t ceph|nfs|nfs4 ...` goes through a shim (mount(8) "
                    "runs mount.TYPE for it), not " +
                        quote(type.empty() ? "no -t" : type));
      cmd = as_mount_helper(cmd, type);
      invoked = basename_of(cmd.front());
    }
    if (!exec::shim::tool_named(invoked))
      throw Error(
          Errc::invalid_argument,
          "shim explain: " + quote(invoked) + " is not a program transparent mode stands in for",
          "explain rbd, mount.ceph, nvme, mount.nfs, mount.nfs4, umount.nfs, umount.nfs4 or "
          "mount -t ceph|nfs|nfs4");

    nlohmann::json doc;
    // The real program is the one of the name invoked (mount.nfs4 is mount.nfs4).
    const std::string program(invoked);
    doc["program"] = program;
    doc["command"] = exec::redacted_command_line(argv_);
    // The search as the shim makes it when the caller runs `cmd[0]`: by
    // the path given, else by the path the caller's lookup finds (mount(8):
    // /sbin/mount.ceph; execvp, Go's LookPath: the first on PATH). A shim
    // started through the plugin image's launcher always has that path as
    // its argv[0].
    std::string invoked_as = cmd.front();
    if (invoked_as.find('/') == std::string::npos)
      invoked_as = program.rfind("mount.", 0) == 0 || program.rfind("umount.", 0) == 0
                       ? "/sbin/" + program
                       : first_on_path(invoked_as);
    doc["invoked_as"] = invoked_as;

    // The shim's own decision, from the same function and environment.
    const exec::shim::Environment env = exec::shim::Environment::from_process();
    const exec::shim::Decision d =
        exec::shim::decide(invoked_as, std::vector<std::string>(cmd.begin() + 1, cmd.end()), env);
    const exec::shim::Tool& tool = *d.tool;
    doc["real"] = {{"path", d.real.path}, {"why", d.real.reasons}};
    doc["holder_dir"] = d.holder_dir;
    if (tool.naming == exec::shim::Naming::monitors) {
      doc["config"] = env.config;
      doc["held_clusters"] =
          env.held ? nlohmann::json(*env.held) : nlohmann::json("all in the config");
    }
    if (env.targets) doc["targets"] = *env.targets;
    doc[tool.named_as] = {{"named", d.named.text}, {"where", d.named.where}};
    if (!d.named.unknown.empty()) doc[tool.named_as]["unknown"] = d.named.unknown;
    nlohmann::json readings = nlohmann::json::array();
    for (const auto& s : d.named.servers)
      readings.push_back({{"server", s.text}, {"read_as", s.host.text}});
    doc[tool.named_as]["readings"] = readings;
    doc["opens_session"] = d.opens_session;
    doc["cluster"] = d.cluster_id;
    if (!d.also.empty()) doc["same_monitors"] = d.also;
    doc["verdict"] = exec::shim::verdict_name(d.verdict);
    doc["held"] = d.verdict == exec::shim::Verdict::holder;
    doc["why"] = d.why;
    if (d.opted_out) doc["opted_out"] = exec::shim::kUnmatchedVariable;
    // A disconnect is not routed (sysfs is the same in every network
    // namespace), but the operator wants to know whose controller it is.
    if (const std::string device = disconnected_device(cmd);
        tool.naming == exec::shim::Naming::targets && !device.empty()) {
      const std::string name(basename_of(device));
      const std::string file = sys_class_nvme_ + "/" + name + "/address";
      nlohmann::json c{{"device", device}, {"address_file", file}};
      try {
        std::string address = read_file(file, 4096);
        while (!address.empty() && address.back() == '\n') address.pop_back();
        const std::string traddr = ceph::nvme_address_field(address, "traddr");
        c["traddr"] = traddr;
        if (env.targets) try {
            const auto holders = exec::shim::parse_targets(*env.targets);
            // Every reading of the address the kernel recorded, as the shim reads it.
            const exec::shim::AddressReadings r = exec::shim::read_host(traddr);
            std::vector<std::string> owners;
            std::vector<std::string> read_as = r.addresses;
            if (!r.name.empty()) read_as.push_back(r.name);
            for (const auto& reading : read_as)
              for (const auto& id : exec::shim::holders_covering(holders, reading))
                if (std::find(owners.begin(), owners.end(), id) == owners.end())
                  owners.push_back(id);
            if (owners.size() == 1) c["holder"] = owners.front();
          } catch (const Error&) {
            // the decision above already says what is wrong with the variable
          }
      } catch (const Error& e) {
        c["unreadable"] = e.describe();
      }
      doc["controller"] = c;
    }
    int status = 0;
    std::string decision;
    switch (d.verdict) {
      case exec::shim::Verdict::refused:
        status = kExitExecutorFailed;
        doc["refusal"] = d.refusal->describe();
        decision = "refused (125): " + d.refusal->describe();
        break;
      case exec::shim::Verdict::untouched:
        decision = "run " + d.real.path + " untouched, in the caller's own namespace";
        break;
      case exec::shim::Verdict::holder: {
        doc["holder"] = d.holder_path;
        exec::ResolveOptions options = d.options;
        options.wait_holder = {};  // now, as it stands
        try {
          exec::ResolvedNamespace ns = exec::resolve(*d.source, options);
          doc["namespace"] = ns.describe();
          decision = "run " + d.real.path + " inside " + ns.describe();
        } catch (const Error& e) {
          status = kExitExecutorFailed;
          const Error refused = d.unusable(e);
          doc["refusal"] = refused.describe();
          decision = "refused (125), " + d.real.path + " not run: " + refused.describe();
        }
        break;
      }
    }
    doc["decision"] = decision;

    if (json_) {
      std::printf("%s\n", doc.dump(2).c_str());
      return status;
    }
    auto line = [](const char* key, const std::string& value) {
      std::printf("%-10s %s\n", key, value.c_str());
    };
    auto str = [&](const char* key) {
      return doc.contains(key) && doc[key].is_string() ? doc[key].get<std::string>()
                                                       : std::string();
    };
    line("command:", doc["command"].get<std::string>());
    line("shim:", invoked_as);
    line("real:", d.real.found() ? d.real.path : "(none)");
    for (const auto& r : d.real.reasons) line("", "- " + r);
    for (const char* named : {"monitors", "target"})
      if (doc.contains(named))
        line((std::string(named) + ":").c_str(),
             route_text(doc[named]["named"], doc[named]["where"]));
    for (const auto& r : doc[tool.named_as]["readings"])
      if (r["server"].get<std::string>() != r["read_as"].get<std::string>())
        line("", "- " + quote(r["server"].get<std::string>()) + " is read as " +
                     r["read_as"].get<std::string>());
    if (!d.named.unknown.empty()) line("", "- cannot tell: " + d.named.unknown);
    line("session:", d.opens_session ? std::string("yes (this call opens a kernel session)")
                                     : "no (" + std::string(tool.session_calls) + " do)");
    if (!str("cluster").empty())
      line((std::string(tool.noun) + ":").c_str(),
           quote(str("cluster")) + (doc["held"].get<bool>() ? " (held)" : " (not held)"));
    if (doc.contains("same_monitors")) line("", "same monitors: " + doc["same_monitors"].dump());
    if (!str("holder").empty()) line("holder:", str("holder"));
    if (!str("why").empty()) line("why:", str("why"));
    if (doc.contains("controller")) {
      const auto& c = doc["controller"];
      std::string text = c["device"].get<std::string>();
      if (c.contains("traddr"))
        text +=
            " at traddr " + c["traddr"].get<std::string>() +
            (c.contains("holder") ? ", served by holder " + quote(c["holder"].get<std::string>())
                                  : ", no holder in NETNS_EXEC_TARGETS serves it");
      else
        text += ": " + c["unreadable"].get<std::string>();
      line("controller:", text + " (disconnect deletes it through sysfs from any namespace)");
    }
    line("decision:", decision);
    std::fflush(stdout);
    return status;
  }

 private:
  static std::string route_text(const nlohmann::json& named, const nlohmann::json& where) {
    const std::string n = named.get<std::string>();
    if (n.empty()) return "(none named)";
    return quote(n) + " (" + where.get<std::string>() + ")";
  }

  bool json_ = false;
  std::string sys_class_nvme_ = "/sys/class/nvme";
  std::vector<std::string> argv_;
};

}  // namespace

std::unique_ptr<Command> make_shim_command() { return std::make_unique<ShimCommand>(); }

}  // namespace netns::cli
